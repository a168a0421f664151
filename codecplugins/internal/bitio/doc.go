// Package bitio is the LSB-first bit stream that the elias-fano and rice
// codecs share: a Writer that appends bits to a byte slice and Window, a
// 64-bit read at any bit position.
//
// Format. Bit i of the stream is bit i%8 of byte i/8: the first bit written
// is bit 0 of the first byte. Finish pads the last byte with zero bits, so a
// stream takes ceil(bits/8) bytes.
//
// Decisions.
//
// The Writer keeps fewer than 32 pending bits between calls in a uint64 and
// flushes whole 32-bit little-endian words, so one Write takes up to 33
// bits (rice writes its 33-bit escape in one call).
//
// Window reads 8 bytes with one load where 8 remain and byte by byte near
// the end, where bits past the end read as zero: decoders read ahead freely
// and check positions against the stream's length themselves, and no byte
// past the end of src is ever touched.
package bitio
