package lobby

// DefaultPort is the server's default port: its TCP lobby (-addr :4242) and, by default, the UDP
// game port every game shares, where A2S queries and LAN probes are answered (net/query).
const DefaultPort = 4242
