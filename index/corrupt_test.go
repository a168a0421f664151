package index_test

import (
	"bytes"
	"compress/flate"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/gpusearch/gpusearch/codecplugins"
	"github.com/gpusearch/gpusearch/index"
)

// dataFiles are the files meta.json checksums.
var dataFiles = []string{"docids.bin", "freqs.bin", "lexicon.bin", "doclens.bin", "urls.bin"}

// streamFiles are the data files that hold deflate streams.
var streamFiles = []string{"lexicon.bin", "doclens.bin", "urls.bin"}

// goodIndex writes a small valid index and returns its directory.
func goodIndex(t testing.TB) string {
	t.Helper()
	r := rand.New(rand.NewPCG(21, 22))
	c := randomCollection(r, 600, []int{1, 3, 127, 128, 129, 300, 600})
	dir := t.TempDir()
	c.write(t, dir, "varint-SU")
	return dir
}

// copyIndex copies the index in src into a new directory.
func copyIndex(t testing.TB, src string) string {
	t.Helper()
	dst := t.TempDir()
	if err := os.CopyFS(dst, os.DirFS(src)); err != nil {
		t.Fatal(err)
	}
	return dst
}

// dataPath is the path of data file name of the index in dir: in the
// generation its meta.json names.
func dataPath(t testing.TB, dir, name string) string {
	t.Helper()
	if name == "meta.json" {
		return filepath.Join(dir, name)
	}
	m, err := index.ReadMeta(dir)
	if err != nil {
		t.Fatal(err)
	}
	return filepath.Join(dir, m.Generation, name)
}

// editFile rewrites one file of the index in dir.
func editFile(t testing.TB, dir, name string, edit func([]byte) []byte) {
	t.Helper()
	p := dataPath(t, dir, name)
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, edit(b), 0o644); err != nil {
		t.Fatal(err)
	}
}

// editJSON rewrites a JSON object through a map, so that fields can be
// given any JSON value.
func editJSON(t testing.TB, b []byte, edit func(m map[string]any)) []byte {
	t.Helper()
	var m map[string]any
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber() // keep 64-bit counts exact
	if err := dec.Decode(&m); err != nil {
		t.Fatal(err)
	}
	edit(m)
	out, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// editMeta rewrites the values of meta.json and puts its checksum right,
// so that only the cross-checks stand between the edit and the index.
func editMeta(t testing.TB, dir string, edit func(m map[string]any)) {
	t.Helper()
	if err := index.EditMeta(dir, func(b []byte) []byte { return editJSON(t, b, edit) }); err != nil {
		t.Fatal(err)
	}
}

// editEnvelope rewrites meta.json's outer object: the version, the
// checksum and the index value.
func editEnvelope(t testing.TB, dir string, edit func(m map[string]any)) {
	t.Helper()
	editFile(t, dir, "meta.json", func(b []byte) []byte { return editJSON(t, b, edit) })
}

// resum records a file's current size and checksum in meta.json, so that
// damage to it gets past the checksum and must be caught by the
// cross-checks.
func resum(t testing.TB, dir, name string) {
	t.Helper()
	b, err := os.ReadFile(dataPath(t, dir, name))
	if err != nil {
		t.Fatal(err)
	}
	editMeta(t, dir, func(m map[string]any) {
		m["files"].(map[string]any)[name] = map[string]any{
			"size":   len(b),
			"crc32c": crc32.Checksum(b, crc32.MakeTable(crc32.Castagnoli)),
		}
	})
}

// editStream rewrites the inflated content of one of the index's deflate
// streams and fixes its checksum, so that only the record checks stand
// between the damage and the cursors. A lexicon must have one segment:
// its segment table is kept, with the end moved to the new stream's.
func editStream(t testing.TB, dir, name string, edit func([]byte) []byte) {
	t.Helper()
	editFile(t, dir, name, func(b []byte) []byte { return restream(t, name, b, edit(inflate(t, b))) })
	resum(t, dir, name)
}

// restream returns file name, whose content was orig, with its stream
// replaced by raw deflated.
func restream(t testing.TB, name string, orig, raw []byte) []byte {
	t.Helper()
	z := deflate(t, raw)
	if name != "lexicon.bin" {
		return z
	}
	const table = 2*48 + 20 + 16 // one segment and the end record, the bounds' values, count, magic
	if n := binary.LittleEndian.Uint64(orig[len(orig)-16:]); n != 2 {
		t.Fatalf("lexicon has %d segment records, the test handles 2", n)
	}
	tail := slices.Clone(orig[len(orig)-table:])
	binary.LittleEndian.PutUint64(tail[48:], uint64(len(z))) // the end record's offset
	return append(z, tail...)
}

func inflate(t testing.TB, b []byte) []byte {
	t.Helper()
	raw, err := io.ReadAll(flate.NewReader(bytes.NewReader(b)))
	if err != nil {
		t.Fatal(err)
	}
	return raw
}

func deflate(t testing.TB, raw []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	z, err := flate.NewWriter(&buf, flate.BestSpeed)
	if err != nil {
		t.Fatal(err)
	}
	z.Write(raw)
	if err := z.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// openRefused opens the index in dir and fails the test unless Open
// returns an error, without panicking; it returns the error.
func openRefused(t *testing.T, dir string) error {
	t.Helper()
	ix, err, p := openNoPanic(dir)
	if p != nil {
		t.Fatalf("Open panicked: %v", p)
	}
	if err == nil {
		ix.Close()
		t.Fatal("Open = nil error, want an error")
	}
	return err
}

// openNoPanic calls index.Open, turning a panic into an error for the test.
func openNoPanic(dir string) (ix *index.Index, err error, panicked any) {
	defer func() { panicked = recover() }()
	ix, err = index.Open(dir)
	return ix, err, nil
}

func TestOpenDamaged(t *testing.T) {
	good := goodIndex(t)
	type tc struct {
		name    string
		damage  func(t *testing.T, dir string)
		wantErr error
		file    string // the file the message must name
	}
	const row = 13
	var tests []tc
	for _, f := range dataFiles {
		tests = append(tests,
			tc{"flipped byte in " + f, func(t *testing.T, dir string) {
				editFile(t, dir, f, func(b []byte) []byte { b[len(b)/2] ^= 0x40; return b })
			}, index.ErrCorrupt, f},
			tc{"truncated " + f, func(t *testing.T, dir string) {
				editFile(t, dir, f, func(b []byte) []byte { return b[:len(b)-1] })
			}, index.ErrCorrupt, f},
			tc{"emptied " + f, func(t *testing.T, dir string) {
				editFile(t, dir, f, func(b []byte) []byte { return nil })
			}, index.ErrCorrupt, f},
			tc{"grown " + f, func(t *testing.T, dir string) {
				editFile(t, dir, f, func(b []byte) []byte { return append(b, 0) })
			}, index.ErrCorrupt, f},
			tc{"missing " + f, func(t *testing.T, dir string) {
				os.Remove(dataPath(t, dir, f))
			}, index.ErrCorrupt, f},
			tc{"meta.json lacks " + f, func(t *testing.T, dir string) {
				editMeta(t, dir, func(m map[string]any) { delete(m["files"].(map[string]any), f) })
			}, index.ErrCorrupt, f},
		)
	}
	meta := func(key string, v any) func(t *testing.T, dir string) {
		return func(t *testing.T, dir string) { editMeta(t, dir, func(m map[string]any) { m[key] = v }) }
	}
	envelope := func(key string, v any) func(t *testing.T, dir string) {
		return func(t *testing.T, dir string) { editEnvelope(t, dir, func(m map[string]any) { m[key] = v }) }
	}
	bump := func(key string, by uint64) func(t *testing.T, dir string) {
		return func(t *testing.T, dir string) {
			editMeta(t, dir, func(m map[string]any) {
				v, err := strconv.ParseUint(string(m[key].(json.Number)), 10, 64)
				if err != nil {
					t.Fatal(err)
				}
				m[key] = v + by // wraps for negative steps, as intended
			})
		}
	}
	tests = append(tests,
		tc{"missing meta.json", func(t *testing.T, dir string) { os.Remove(filepath.Join(dir, "meta.json")) }, index.ErrCorrupt, "meta.json"},
		tc{"empty meta.json", func(t *testing.T, dir string) {
			editFile(t, dir, "meta.json", func([]byte) []byte { return nil })
		}, index.ErrCorrupt, "meta.json"},
		tc{"garbage meta.json", func(t *testing.T, dir string) {
			editFile(t, dir, "meta.json", func([]byte) []byte { return []byte("\x00\xffnot json{") })
		}, index.ErrCorrupt, "meta.json"},
		tc{"meta.json is an array", func(t *testing.T, dir string) {
			editFile(t, dir, "meta.json", func([]byte) []byte { return []byte("[1,2]") })
		}, index.ErrCorrupt, "meta.json"},
		tc{"meta.json field of wrong type", meta("docs", "many"), index.ErrCorrupt, "meta.json"},
		tc{"negative document count", meta("docs", -1), index.ErrCorrupt, "meta.json"},
		tc{"newer version", envelope("version", index.SegmentedVersion+1), index.ErrVersion, "meta.json"},
		tc{"version zero", envelope("version", 0), index.ErrVersion, "meta.json"},
		tc{"older version", envelope("version", 2), index.ErrVersion, "rebuild"},
		tc{"no version", func(t *testing.T, dir string) {
			editEnvelope(t, dir, func(m map[string]any) { delete(m, "version") })
		}, index.ErrVersion, "meta.json"},
		tc{"checksum of the commit wrong", envelope("crc32c", 12345), index.ErrCorrupt, "meta.json"},
		tc{"no checksum", func(t *testing.T, dir string) {
			editEnvelope(t, dir, func(m map[string]any) { delete(m, "crc32c") })
		}, index.ErrCorrupt, "meta.json"},
		tc{"generation not a generation's name", meta("generation", "../elsewhere"), index.ErrCorrupt, "meta.json"},
		tc{"generation missing", meta("generation", "gen-99"), index.ErrCorrupt, ""},
		tc{"files names an unknown file", func(t *testing.T, dir string) {
			editMeta(t, dir, func(m map[string]any) {
				m["files"].(map[string]any)["extra.bin"] = map[string]any{"size": 0, "crc32c": 0}
			})
		}, index.ErrCorrupt, "meta.json"},
		tc{"unknown docid codec", meta("docid_codec", "nosuch"), codecplugins.ErrUnknownCodec, "meta.json"},
		tc{"unknown freq codec", meta("freq_codec", "nosuch"), codecplugins.ErrUnknownCodec, "meta.json"},
		tc{"wrong block size", meta("block_size", 64), index.ErrCorrupt, "meta.json"},
		tc{"zero block size", meta("block_size", 0), index.ErrCorrupt, "meta.json"},
		tc{"one document more", bump("docs", 1), index.ErrCorrupt, ""},
		tc{"one document fewer", bump("docs", ^uint64(0)), index.ErrCorrupt, ""},
		tc{"one term more", bump("terms", 1), index.ErrCorrupt, ""},
		tc{"one term fewer", bump("terms", ^uint64(0)), index.ErrCorrupt, ""},
		tc{"one block more", bump("blocks", 1), index.ErrCorrupt, ""},
		tc{"one posting more", bump("postings", 1), index.ErrCorrupt, ""},
		tc{"one token more", bump("tokens", 1), index.ErrCorrupt, ""},
		// Counts whose byte sizes overflow 64 bits to the real sizes.
		tc{"term count overflows", bump("terms", 1<<59), index.ErrCorrupt, ""},
		tc{"block count overflows", bump("blocks", 1<<61), index.ErrCorrupt, ""},
		tc{"document count overflows", bump("docs", 1<<62), index.ErrCorrupt, ""},
		tc{"huge counts", func(t *testing.T, dir string) {
			editMeta(t, dir, func(m map[string]any) {
				for _, k := range []string{"docs", "terms", "blocks", "postings"} {
					m[k] = uint64(1) << 63
				}
			})
		}, index.ErrCorrupt, ""},
		// Damage that keeps the checksums right: the record checks catch
		// it. The lexicon's first record is the term "t000-len1" (prefix 0,
		// length 9, 9 bytes), df 1 at byte 11, cf-df, then (no score, as
		// df is 1) its one skip row at byte row.
		tc{"terms out of order", func(t *testing.T, dir string) {
			editStream(t, dir, "lexicon.bin", func(b []byte) []byte { b[5] = '9'; return b }) // t009-len1 before t001-len3
		}, index.ErrCorrupt, "lexicon.bin"},
		tc{"prefix longer than the previous term", func(t *testing.T, dir string) {
			editStream(t, dir, "lexicon.bin", func(b []byte) []byte { b[0] = 3; return b })
		}, index.ErrCorrupt, "lexicon.bin"},
		tc{"zero df", func(t *testing.T, dir string) {
			editStream(t, dir, "lexicon.bin", func(b []byte) []byte { b[11] = 0; return b })
		}, index.ErrCorrupt, "lexicon.bin"},
		tc{"df beyond the documents", func(t *testing.T, dir string) {
			editStream(t, dir, "lexicon.bin", func(b []byte) []byte {
				return slices.Concat(b[:11], []byte{0xff, 0xff, 0x7f}, b[12:])
			})
		}, index.ErrCorrupt, "lexicon.bin"},
		tc{"last docid out of range", func(t *testing.T, dir string) {
			editStream(t, dir, "lexicon.bin", func(b []byte) []byte {
				return slices.Concat(b[:row], []byte{0xff, 0xff, 0x7f}, b[row+uvarintLen(b[row:]):])
			})
		}, index.ErrCorrupt, "lexicon.bin"},
		tc{"block past docids.bin", func(t *testing.T, dir string) {
			editStream(t, dir, "lexicon.bin", func(b []byte) []byte {
				i := row + uvarintLen(b[row:]) // the docid block's size
				return slices.Concat(b[:i], []byte{0xff, 0xff, 0x7f}, b[i+uvarintLen(b[i:]):])
			})
		}, index.ErrCorrupt, "lexicon.bin"},
		tc{"block sizes do not span docids.bin", func(t *testing.T, dir string) {
			editStream(t, dir, "lexicon.bin", func(b []byte) []byte {
				b[row+uvarintLen(b[row:])]--
				return b
			})
		}, index.ErrCorrupt, "lexicon.bin"},
		tc{"varint past 64 bits", func(t *testing.T, dir string) {
			editStream(t, dir, "lexicon.bin", func(b []byte) []byte {
				return slices.Concat(b[:11], bytes.Repeat([]byte{0xff}, 11), b[12:])
			})
		}, index.ErrCorrupt, "lexicon.bin"},
		tc{"lexicon cut short", func(t *testing.T, dir string) {
			editStream(t, dir, "lexicon.bin", func(b []byte) []byte { return b[:len(b)-3] })
		}, index.ErrCorrupt, "lexicon.bin"},
		tc{"record after the last term", func(t *testing.T, dir string) {
			editStream(t, dir, "lexicon.bin", func(b []byte) []byte { return append(b, 0) })
		}, index.ErrCorrupt, "lexicon.bin"},
		tc{"not a deflate stream", func(t *testing.T, dir string) {
			editFile(t, dir, "lexicon.bin", func(b []byte) []byte { return []byte("plain bytes, not deflate") })
			resum(t, dir, "lexicon.bin")
		}, index.ErrCorrupt, "lexicon.bin"},
		tc{"url prefix longer than the previous URL", func(t *testing.T, dir string) {
			editStream(t, dir, "urls.bin", func(b []byte) []byte { b[0] = 1; return b })
		}, index.ErrCorrupt, "urls.bin"},
		tc{"url of a huge length", func(t *testing.T, dir string) {
			editStream(t, dir, "urls.bin", func(b []byte) []byte {
				return slices.Concat(b[:1], []byte{0xff, 0xff, 0xff, 0x7f}, b[1+uvarintLen(b[1:]):])
			})
		}, index.ErrCorrupt, "urls.bin"},
		tc{"urls cut short", func(t *testing.T, dir string) {
			editStream(t, dir, "urls.bin", func(b []byte) []byte { return b[:len(b)-1] })
		}, index.ErrCorrupt, "urls.bin"},
		tc{"document lengths disagree with tokens", func(t *testing.T, dir string) {
			editStream(t, dir, "doclens.bin", func(b []byte) []byte { b[0]++; return b })
		}, index.ErrCorrupt, "doclens.bin"},
		tc{"document length past 32 bits", func(t *testing.T, dir string) {
			editStream(t, dir, "doclens.bin", func(b []byte) []byte {
				return slices.Concat([]byte{0xff, 0xff, 0xff, 0xff, 0x7f}, b[1:])
			})
		}, index.ErrCorrupt, "doclens.bin"},
		tc{"one document length more", func(t *testing.T, dir string) {
			editStream(t, dir, "doclens.bin", func(b []byte) []byte { return append(b, 0) })
		}, index.ErrCorrupt, "doclens.bin"},
	)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := copyIndex(t, good)
			tt.damage(t, dir)
			err := openRefused(t, dir)
			if !errors.Is(err, tt.wantErr) {
				t.Errorf("Open error = %v, want errors.Is %v", err, tt.wantErr)
			}
			if tt.file != "" && !strings.Contains(err.Error(), tt.file) {
				t.Errorf("Open error = %q, want it to name %s", err, tt.file)
			}
			if tt.file == "" && !namesAFile(err.Error()) {
				t.Errorf("Open error = %q, want it to name the damaged file", err)
			}
		})
	}
}

// uvarintLen is the length of the uvarint at the start of b.
func uvarintLen(b []byte) int {
	_, n := binary.Uvarint(b)
	return n
}

func namesAFile(msg string) bool {
	for _, f := range append(dataFiles, "meta.json") {
		if strings.Contains(msg, f) {
			return true
		}
	}
	return false
}

// TestDamageBehindChecksums flips random bytes in each data file and fixes
// the checksum in meta.json, so only the structural checks stand between
// the damage and the cursors. Open may refuse the index; if it opens, every
// accessor and cursor must stay in bounds: no panic, docids in range, and
// a damaged block reported by Err.
func TestDamageBehindChecksums(t *testing.T) {
	good := goodIndex(t)
	dir := copyIndex(t, good)
	orig := map[string][]byte{}
	for _, f := range append(dataFiles, "meta.json") {
		b, err := os.ReadFile(dataPath(t, good, f))
		if err != nil {
			t.Fatal(err)
		}
		orig[f] = b
	}
	put := func(name string, b []byte) {
		if err := os.WriteFile(dataPath(t, dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	r := rand.New(rand.NewPCG(23, 24))
	flip := func(b []byte) []byte {
		b = slices.Clone(b)
		for range 1 + r.IntN(3) {
			b[r.IntN(len(b))] ^= byte(1 << r.IntN(8))
		}
		return b
	}
	type target struct {
		name, file string
		damage     func() []byte
	}
	var targets []target
	for _, f := range dataFiles {
		targets = append(targets, target{f, f, func() []byte { return flip(orig[f]) }})
	}
	// Flipped bits in a compressed stream mostly break the deflate
	// encoding; flipped bits in its records, deflated again, reach the
	// record checks.
	for _, f := range streamFiles {
		raw := inflate(t, orig[f])
		targets = append(targets, target{f + " records", f, func() []byte { return restream(t, f, orig[f], flip(raw)) }})
	}
	for _, tg := range targets {
		f := tg.file
		t.Run(tg.name, func(t *testing.T) {
			defer put(f, orig[f])
			opened, refused := 0, 0
			for trial := range 50 {
				put(f, tg.damage())
				put("meta.json", orig["meta.json"])
				resum(t, dir, f)
				openErr, err := exercise(dir)
				if err != nil {
					t.Fatalf("trial %d: %v", trial, err)
				}
				if openErr == nil {
					opened++
					continue
				}
				refused++
				if !errors.Is(openErr, index.ErrCorrupt) || !namesAFile(openErr.Error()) {
					t.Errorf("trial %d: Open error = %v, want ErrCorrupt naming a file", trial, openErr)
				}
			}
			t.Logf("%s: %d damaged indexes opened, %d refused", tg.name, opened, refused)
		})
	}
}

// exercise opens the index in dir and, if it opens, reads everything
// through the public API. It returns Open's error, and an error for a
// panic or an out-of-range docid.
func exercise(dir string) (openErr, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("panic: %v", p)
		}
	}()
	ix, openErr := index.Open(dir)
	if openErr != nil {
		return openErr, nil
	}
	defer ix.Close()
	n := uint32(ix.NumDocs())
	for d := range n {
		_ = ix.URL(d)
		_ = ix.DocLen(d)
	}
	for i := range ix.NumTerms() {
		info := ix.Term(i)
		if got, ok := ix.Lookup(info.Term); !ok || got.ID > i {
			return nil, fmt.Errorf("Lookup(%q) = %+v, %v after Term(%d)", info.Term, got, ok, i)
		}
		c := ix.Cursor(info)
		for d := c.DocID(); d != index.NoMoreDocs; d = c.Next() {
			if d >= n {
				return nil, fmt.Errorf("term %q: docid %d, only %d documents", info.Term, d, n)
			}
			c.Freq()
		}
		c = ix.Cursor(info)
		for target := uint32(0); c.DocID() != index.NoMoreDocs; target += 37 {
			c.ShallowNextGEQ(target)
			c.BlockMaxScore()
			c.BlockLastDocID()
			if d := c.NextGEQ(target); d != index.NoMoreDocs && (d >= n || d < target) {
				return nil, fmt.Errorf("term %q: NextGEQ(%d) = %d, only %d documents", info.Term, target, d, n)
			}
		}
		if c.Err() != nil && !errors.Is(c.Err(), index.ErrCorrupt) {
			return nil, fmt.Errorf("term %q: Err() = %v, want ErrCorrupt", info.Term, c.Err())
		}
	}
	return nil, nil
}

// FuzzStreams feeds arbitrary records to Open through each deflate stream
// of a valid index (checksums fixed): Open must refuse them or give an
// index whose every accessor and cursor stays in bounds.
func FuzzStreams(f *testing.F) {
	good := goodIndex(f)
	raw := map[string][]byte{}
	for i, name := range streamFiles {
		b, err := os.ReadFile(dataPath(f, good, name))
		if err != nil {
			f.Fatal(err)
		}
		raw[name] = inflate(f, b)
		f.Add(uint8(i), raw[name])
	}
	f.Fuzz(func(t *testing.T, which uint8, records []byte) {
		dir := copyIndex(t, good)
		name := streamFiles[int(which)%len(streamFiles)]
		editStream(t, dir, name, func([]byte) []byte { return records })
		if openErr, err := exercise(dir); err != nil {
			t.Fatal(err)
		} else if openErr != nil && !errors.Is(openErr, index.ErrCorrupt) {
			t.Fatalf("Open error = %v, want ErrCorrupt", openErr)
		}
	})
}
