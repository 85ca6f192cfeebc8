package docs

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// readmeMaxLines is how long the README may grow: it is the players' page (what the game is,
// how to play, how to host in a few lines, how to test); the rest lives in docs/.
const readmeMaxLines = 200

// The README stays a player's page.
func TestReadmeIsShort(t *testing.T) {
	b, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(b), "\n"); n > readmeMaxLines {
		t.Errorf("README.md has %d lines, at most %d: move what is not for players to docs/ (docs/HOSTING.md for servers)", n, readmeMaxLines)
	}
	// Its first commands are make play and make test.
	first := regexp.MustCompile("(?m)^make [a-z]+").FindAllString(string(b), 2)
	if len(first) != 2 || first[0] != "make play" || first[1] != "make test" {
		t.Errorf("README.md's first commands are %q, want make play then make test", first)
	}
}

// mdLink is a Markdown link or image: [text](target) or ![alt](target), the target up to a
// space (a title) or the closing parenthesis.
var mdLink = regexp.MustCompile(`!?\[[^\]]*\]\(([^)\s]+)[^)]*\)`)

// fence opens or closes a fenced code block, whose text is not Markdown.
var fence = regexp.MustCompile("^\\s*(```|~~~)")

// relativeLinks returns the relative link targets of the Markdown text (code blocks and inline
// code left out), without their #fragment.
func relativeLinks(text string) []string {
	var out []string
	inCode := false
	for _, line := range strings.Split(text, "\n") {
		if fence.MatchString(line) {
			inCode = !inCode
			continue
		}
		if inCode {
			continue
		}
		line = regexp.MustCompile("`[^`]*`").ReplaceAllString(line, "")
		for _, m := range mdLink.FindAllStringSubmatch(line, -1) {
			target := m[1]
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") || strings.HasPrefix(target, "#") {
				continue
			}
			if i := strings.IndexByte(target, '#'); i >= 0 {
				target = target[:i]
			}
			out = append(out, target)
		}
	}
	return out
}

// Every relative link of README.md and of docs/*.md names a file or directory that exists.
func TestRelativeLinksResolve(t *testing.T) {
	files := []string{"../README.md"}
	docs, err := filepath.Glob("*.md")
	if err != nil {
		t.Fatal(err)
	}
	files = append(files, docs...)
	if more, _ := filepath.Glob("*/README.md"); len(more) > 0 {
		files = append(files, more...)
	}
	checked := 0
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, target := range relativeLinks(string(b)) {
			p := filepath.Join(filepath.Dir(f), filepath.FromSlash(target))
			if _, err := os.Stat(p); err != nil {
				t.Errorf("%s links to %s, which does not exist (%s)", f, target, p)
			}
			checked++
		}
	}
	if checked < 10 {
		t.Errorf("only %d relative links found in %v: is the link pattern still right?", checked, files)
	}
}

// The link finder sees links and images, not code.
func TestRelativeLinksPattern(t *testing.T) {
	got := relativeLinks("see [a](docs/A.md#x) and ![b](b.png \"t\"), [c](https://x.y/z), [d](#e)\n" +
		"`[no](code.md)`\n```\n[no](block.md)\n```\n")
	if strings.Join(got, ",") != "docs/A.md,b.png" {
		t.Errorf("relativeLinks = %q, want docs/A.md and b.png", got)
	}
}
