/* dtype: the element types of the collectives benchmark: sizes, exact ranges,
 * 16-bit float conversions, element access, and their MPI types and
 * reductions (user-defined for float16 and bfloat16). */
#include <math.h>
#include <string.h>

#include "benchmarks/collectives/coll.h"
#include "benchmarks/common/check.h"
#include "benchmarks/common/mpi/comm.h"

const char *const coll_dtype_names[] = {"float32", "float64", "float16", "bfloat16", "int32", NULL};
const char *const coll_redop_names[] = {"sum", "min", "max", NULL};
const char *const coll_backend_names[] = {"mpi", "mpi-cuda", "nccl", NULL};

size_t coll_dtype_size(coll_dtype_t t)
{
    switch (t) {
    case DT_F32: return 4;
    case DT_F64: return 8;
    case DT_F16: return 2;
    case DT_BF16: return 2;
    case DT_I32: return 4;
    default: break;
    }
    CHECK(0, "unknown data type %d", (int)t);
}

double coll_dtype_exact_limit(coll_dtype_t t)
{
    /* 2^(significand bits): every integer up to it in magnitude is exact */
    switch (t) {
    case DT_F32: return 16777216.0;             /* 2^24 */
    case DT_F64: return 9007199254740992.0;     /* 2^53 */
    case DT_F16: return 2048.0;                 /* 2^11 */
    case DT_BF16: return 256.0;                 /* 2^8 */
    case DT_I32: return 2147483647.0;
    default: break;
    }
    CHECK(0, "unknown data type %d", (int)t);
}

/* ---- 16-bit floats ---------------------------------------------------------- */
uint16_t coll_f32_to_f16(float f)
{
    uint32_t x;
    memcpy(&x, &f, sizeof x);
    uint32_t sign = (x >> 16) & 0x8000u;
    uint32_t ax = x & 0x7fffffffu;
    if (ax >= 0x7f800000u) /* inf stays inf; NaN stays a (quiet) NaN */
        return (uint16_t)(sign | 0x7c00u | (ax > 0x7f800000u ? 0x200u | ((ax >> 13) & 0x3ffu) : 0));
    if (ax >= 0x477ff000u) return (uint16_t)(sign | 0x7c00u); /* >= 65520 rounds to inf */
    if (ax < 0x38800000u) {                                   /* below 2^-14: subnormal */
        if (ax < 0x33000000u) return (uint16_t)sign;          /* below 2^-25: zero */
        uint32_t e = ax >> 23, m = (ax & 0x7fffffu) | 0x800000u;
        uint32_t shift = 126u - e; /* value / 2^-24 = m * 2^(e - 126) */
        uint32_t q = m >> shift, rem = m & ((1u << shift) - 1u), half = 1u << (shift - 1u);
        if (rem > half || (rem == half && (q & 1u))) q++;
        return (uint16_t)(sign | q);
    }
    uint32_t h = (((ax >> 23) - 112u) << 10) | ((ax & 0x7fffffu) >> 13);
    uint32_t rem = ax & 0x1fffu;
    if (rem > 0x1000u || (rem == 0x1000u && (h & 1u))) h++; /* a carry moves the exponent: right */
    return (uint16_t)(sign | h);
}

float coll_f16_to_f32(uint16_t h)
{
    uint32_t sign = (uint32_t)(h & 0x8000u) << 16;
    uint32_t e = (h >> 10) & 0x1fu, m = h & 0x3ffu, x;
    if (e == 0) {
        float f = ldexpf((float)m, -24);
        memcpy(&x, &f, sizeof x);
        x |= sign;
    } else if (e == 31) {
        x = sign | 0x7f800000u | (m << 13);
    } else {
        x = sign | ((e + 112u) << 23) | (m << 13);
    }
    float f;
    memcpy(&f, &x, sizeof f);
    return f;
}

uint16_t coll_f32_to_bf16(float f)
{
    uint32_t x;
    memcpy(&x, &f, sizeof x);
    if ((x & 0x7fffffffu) > 0x7f800000u) return (uint16_t)((x >> 16) | 0x40u); /* quiet NaN */
    x += 0x7fffu + ((x >> 16) & 1u);
    return (uint16_t)(x >> 16);
}

float coll_bf16_to_f32(uint16_t b)
{
    uint32_t x = (uint32_t)b << 16;
    float f;
    memcpy(&f, &x, sizeof f);
    return f;
}

double coll_get(coll_dtype_t t, const void *buf, size_t i)
{
    switch (t) {
    case DT_F32: return ((const float *)buf)[i];
    case DT_F64: return ((const double *)buf)[i];
    case DT_F16: return coll_f16_to_f32(((const uint16_t *)buf)[i]);
    case DT_BF16: return coll_bf16_to_f32(((const uint16_t *)buf)[i]);
    case DT_I32: return ((const int32_t *)buf)[i];
    default: break;
    }
    CHECK(0, "unknown data type %d", (int)t);
}

void coll_set(coll_dtype_t t, void *buf, size_t i, double v)
{
    switch (t) {
    case DT_F32: ((float *)buf)[i] = (float)v; return;
    case DT_F64: ((double *)buf)[i] = v; return;
    case DT_F16: ((uint16_t *)buf)[i] = coll_f32_to_f16((float)v); return;
    case DT_BF16: ((uint16_t *)buf)[i] = coll_f32_to_bf16((float)v); return;
    case DT_I32: ((int32_t *)buf)[i] = (int32_t)v; return;
    default: break;
    }
    CHECK(0, "unknown data type %d", (int)t);
}

/* ---- MPI -------------------------------------------------------------------- */
MPI_Datatype coll_mpi_type(coll_dtype_t t)
{
    switch (t) {
    case DT_F32: return MPI_FLOAT;
    case DT_F64: return MPI_DOUBLE;
    case DT_F16:
    case DT_BF16: return MPI_UINT16_T;
    case DT_I32: return MPI_INT32_T;
    default: break;
    }
    CHECK(0, "unknown data type %d", (int)t);
}

/* user-defined reductions for the 16-bit floats: each pair in float, rounded
 * back once (float has more than 2p+2 bits, so this is the correctly rounded
 * 16-bit result) */
#define HALF_OP(NAME, TO, FROM, EXPR)                                             \
    static void NAME(void *in, void *inout, int *len, MPI_Datatype *dt)           \
    {                                                                             \
        (void)dt;                                                                 \
        const uint16_t *a = in;                                                   \
        uint16_t *b = inout;                                                      \
        for (int i = 0; i < *len; i++) {                                          \
            float x = FROM(a[i]), y = FROM(b[i]);                                 \
            b[i] = TO(EXPR);                                                      \
        }                                                                         \
    }
HALF_OP(f16_sum, coll_f32_to_f16, coll_f16_to_f32, x + y)
HALF_OP(f16_min, coll_f32_to_f16, coll_f16_to_f32, y < x ? y : x)
HALF_OP(f16_max, coll_f32_to_f16, coll_f16_to_f32, y > x ? y : x)
HALF_OP(bf16_sum, coll_f32_to_bf16, coll_bf16_to_f32, x + y)
HALF_OP(bf16_min, coll_f32_to_bf16, coll_bf16_to_f32, y < x ? y : x)
HALF_OP(bf16_max, coll_f32_to_bf16, coll_bf16_to_f32, y > x ? y : x)

static MPI_Op g_user_ops[2][RED_COUNT];
static int g_user_ops_made;

MPI_Op coll_mpi_op(coll_dtype_t t, coll_redop_t op)
{
    if (t != DT_F16 && t != DT_BF16) {
        switch (op) {
        case RED_SUM: return MPI_SUM;
        case RED_MIN: return MPI_MIN;
        case RED_MAX: return MPI_MAX;
        default: break;
        }
        CHECK(0, "unknown reduction %d", (int)op);
    }
    if (!g_user_ops_made) {
        MPI_User_function *fns[2][RED_COUNT] = {{f16_sum, f16_min, f16_max},
                                                {bf16_sum, bf16_min, bf16_max}};
        for (int i = 0; i < 2; i++)
            for (int j = 0; j < RED_COUNT; j++)
                CHECK_MPI(MPI_Op_create(fns[i][j], 1, &g_user_ops[i][j]));
        g_user_ops_made = 1;
    }
    CHECK(op >= 0 && op < RED_COUNT, "unknown reduction %d", (int)op);
    return g_user_ops[t == DT_BF16][op];
}

void coll_mpi_ops_free(void)
{
    if (!g_user_ops_made) return;
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < RED_COUNT; j++) MPI_Op_free(&g_user_ops[i][j]);
    g_user_ops_made = 0;
}
