package assets

//go:generate go run ./gen/sprites
