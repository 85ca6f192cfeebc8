package assets

// go generate runs in this directory.
//go:generate go run ./gen/sprites -out sprites -sheet ../docs/art/contact-sheet.png
//go:generate go run ./gen/icons -root ..
