package replay

// FileExt is the file name extension of a replay file (the server's data directory, the
// client's kept copies, a file sent to a friend).
const FileExt = ".rtr"
