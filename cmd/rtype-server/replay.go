package main

import (
	"fmt"
	"os"

	"github.com/rtype/rtype/game/replay"
)

// replayCmd is `rtype-server replay verify FILE...`: it plays each replay headless and checks
// every checkpoint (game/replay.VerifyFile). It prints OK or the failure per file and returns
// the exit status: 0 all verified, 1 one failed, 2 usage.
func replayCmd(args []string) int {
	if len(args) < 2 || args[0] != "verify" {
		fmt.Fprintln(os.Stderr, "usage: rtype-server replay verify FILE...\n\nPlays each replay headless and checks every hash checkpoint (docs/REPLAY.md).")
		return 2
	}
	status := 0
	for _, path := range args[1:] {
		sum, err := replay.VerifyFile(path)
		if err != nil {
			if sum != "" {
				fmt.Printf("FAIL %s: %s\n", path, sum)
			}
			fmt.Fprintf(os.Stderr, "FAIL %s: %v\n", path, err)
			status = 1
			continue
		}
		fmt.Printf("OK %s: %s\n", path, sum)
	}
	return status
}
