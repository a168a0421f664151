// Package loud shouts.
package loud

// Shout returns s with an exclamation mark.
func Shout(s string) string { return s + "!" }
