// Command icons writes the client's desktop icons from the window icon (art.Set.Icons: player
// 1's ship): the Windows icon resource linked into rtype-client.exe
// (cmd/rtype-client/rsrc_windows_amd64.syso, through github.com/tc-hib/winres; the Go linker
// takes a .syso file of the package's directory) and the PNG the Linux .desktop file names
// (deploy/linux/rtype.png). Run from the repository root through go generate (assets/gen.go):
//
//	go run ./assets/gen/icons
//
// TestCommittedIconsAreGenerated checks that the committed files are this program's output.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"image/png"
	"os"

	"github.com/tc-hib/winres"

	"github.com/rtype/rtype/game/client/art"
)

// The output files, relative to the repository root.
const (
	sysoPath = "cmd/rtype-client/rsrc_windows_amd64.syso"
	pngPath  = "deploy/linux/rtype.png"
)

func main() {
	root := flag.String("root", ".", "repository root")
	flag.Parse()
	syso, pngData, err := build()
	if err == nil {
		err = os.WriteFile(*root+"/"+sysoPath, syso, 0o644)
	}
	if err == nil {
		err = os.WriteFile(*root+"/"+pngPath, pngData, 0o644)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "icons:", err)
		os.Exit(1)
	}
}

// build returns the Windows resource object (icon group 1, every size of art.IconSizes: the
// first icon resource is the one Explorer shows) and the largest icon as a PNG.
func build() (syso, pngData []byte, err error) {
	set, err := art.Load()
	if err != nil {
		return nil, nil, err
	}
	imgs := set.Icons()
	if len(imgs) == 0 {
		return nil, nil, fmt.Errorf("no icon frames in the art")
	}
	icon, err := winres.NewIconFromImages(imgs)
	if err != nil {
		return nil, nil, err
	}
	var rs winres.ResourceSet
	if err := rs.SetIcon(winres.ID(1), icon); err != nil {
		return nil, nil, err
	}
	var o bytes.Buffer
	if err := rs.WriteObject(&o, winres.ArchAMD64); err != nil {
		return nil, nil, err
	}
	var p bytes.Buffer
	if err := png.Encode(&p, imgs[len(imgs)-1]); err != nil {
		return nil, nil, err
	}
	return o.Bytes(), p.Bytes(), nil
}
