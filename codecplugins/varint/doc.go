// Package varint holds the byte-aligned codecs: varint-SU (classic VByte,
// seven data bits per byte, the high bit marking continuation) and the
// grouped varint family. Each registers itself in init.
package varint
