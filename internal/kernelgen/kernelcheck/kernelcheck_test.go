package kernelcheck

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

const testPTX = `
.visible .entry two(
	.param .u64 two_param_0,
	.param .u64 two_param_1
)
{ ret; }
.visible .entry decode_a(
	.param .u64 decode_a_param_0
)
.visible .entry decode_b(
	.param .u64 decode_b_param_0
)
`

func TestEntries(t *testing.T) {
	got := Entries([]byte(testPTX + ".entry none()\n.entry narrow(.param .u32 narrow_param_0)\n"))
	want := map[string][]string{
		"two": {".u64", ".u64"}, "decode_a": {".u64"}, "decode_b": {".u64"},
		"none": nil, "narrow": {".u32"},
	}
	if len(got) != len(want) {
		t.Fatalf("Entries = %v, want %v", got, want)
	}
	for k, w := range want {
		if g, ok := got[k]; !ok || !slices.Equal(g, w) {
			t.Errorf("Entries[%s] = %v, want %v", k, g, w)
		}
	}
}

func TestCheck(t *testing.T) {
	const launchAll = `s.launch("two", 1, 1, 1, 2)
	d.Launch(st, "decode_"+stem, 1, 1, 9)
`
	tests := []struct {
		name string
		body string // the body of a function f(s, d, st, stem, kernel, args)
		ptx  string
		want []string // substrings of the error, none when it passes
	}{
		{"ok", launchAll, testPTX, nil},
		{"variable", `s.launch("two", 1, 1, 1, 2)
	name := "decode_a"
	if stem != "" {
		name = "decode_" + stem
	}
	s.launch(name, 1, 1, 9)
`, testPTX, nil},
		{"forwarding", launchAll + "\td.Launch(st, kernel, 1, 1, args...)\n\td.launch(st)\n", testPTX, nil},
		{"count", `s.launch("two", 1, 1, 1)
	d.Launch(st, "decode_"+stem, 1, 1, 9, 9)
`, testPTX, []string{"two passes 1 arguments, the kernel has 2", "decode_a passes 2", "decode_b passes 2"}},
		{"unknown", launchAll + "\ts.launch(\"three\", 1, 1)\n\ts.launch(\"x_\"+stem, 1, 1)\n", testPTX,
			[]string{"launch of three: no such kernel", "launch of x_*: no such kernel"}},
		{"unlaunched", `s.launch("two", 1, 1, 1, 2)`, testPTX, []string{"decode_a is never launched", "decode_b is never launched"}},
		{"narrow", launchAll + "\ts.launch(\"narrow\", 1, 1, 1)\n", testPTX + ".entry narrow(.param .u32 narrow_param_0)\n",
			[]string{"kernel narrow: parameter 0 is .u32"}},
		{"unresolved", launchAll + "\ts.launch(kernel, 1, 1, 1)\n", testPTX, []string{"cannot tell which kernel"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			src := "package p\n\nfunc f(s, d, st any, stem, kernel string, args []uint64) {\n\t" + tt.body + "\n}\n"
			if err := os.WriteFile(filepath.Join(dir, "p.go"), []byte(src), 0o644); err != nil {
				t.Fatal(err)
			}
			// Test files are not the package's launches.
			if err := os.WriteFile(filepath.Join(dir, "p_test.go"), []byte("package p\n\nfunc g(s any) { s.launch(\"none\", 1, 1) }\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			err := Check(dir, []byte(tt.ptx))
			if tt.want == nil {
				if err != nil {
					t.Errorf("Check = %v, want nil", err)
				}
				return
			}
			if err == nil {
				t.Fatalf("Check = nil, want errors %q", tt.want)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("Check = %v, want an error containing %q", err, w)
				}
			}
		})
	}
}
