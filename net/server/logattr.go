package server

import "log/slog"

// ReplaceLogAttr is the server's slog.HandlerOptions.ReplaceAttr: a duration is written as its
// string ("1.5s", "250ms") rather than slog's JSON integer of nanoseconds, which log readers
// and alert rules would have to divide by 10⁹ and which reads as a count.
func ReplaceLogAttr(_ []string, a slog.Attr) slog.Attr {
	if a.Value.Kind() == slog.KindDuration {
		return slog.String(a.Key, a.Value.Duration().String())
	}
	return a
}
