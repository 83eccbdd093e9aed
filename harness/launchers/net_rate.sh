# net_rate.sh: sourced by harness/launchers/netns.sh and tests/support/vcluster.sh,
# the two emulated networks, so that a rate means the same in both.
#
# net_rate_bps RATE: prints RATE in bits per second (tc's decimal units: bit,
# kbit, mbit, gbit, tbit), 0 for "unlimited", or "bad" for anything else.
net_rate_bps() {
    [ "$1" = unlimited ] && { echo 0; return; }
    printf '%s\n' "$1" | awk '
        match(tolower($0), /^[0-9]+(\.[0-9]+)?/) {
            v = substr($0, 1, RLENGTH); u = tolower(substr($0, RLENGTH + 1))
            m = u == "bit" ? 1 : u == "kbit" ? 1e3 : u == "mbit" ? 1e6 : u == "gbit" ? 1e9 : u == "tbit" ? 1e12 : -1
            if (m > 0 && v > 0) { printf "%.0f\n", v * m; exit }
        }
        { print "bad"; exit }'
}
