// Package escape percent-encodes the characters of a string that must not
// reach a line-oriented output as they are: a terminal's result lines, a
// TREC run's docnos.
package escape

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Percent percent-encodes, byte by byte, every character of s that does
// not print (unicode.IsPrint: newlines, tabs, terminal escapes), every
// byte of invalid UTF-8, and every character for which also reports true
// (also may be nil). Other characters stay as they are.
func Percent(s string, also func(r rune) bool) string {
	var b strings.Builder
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 || !unicode.IsPrint(r) || also != nil && also(r) {
			for _, c := range []byte(s[i : i+n]) {
				fmt.Fprintf(&b, "%%%02X", c)
			}
		} else {
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}
