package main

import (
	"maps"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gpusearch/gpusearch/index"
)

// killSweepEnv sets the number of kills of TestIndexKilledAnyInstant
// (default 8), for a longer sweep.
const killSweepEnv = "GPUSEARCH_KILL_SWEEP"

// committed opens the index in dir, failing the test if it does not open,
// and returns its files' sizes and checksums and its docid order.
func committed(t *testing.T, dir string) (map[string]index.FileMeta, string) {
	t.Helper()
	ix, err := index.Open(dir)
	if err != nil {
		t.Fatalf("the output directory holds no index that opens: %v", err)
	}
	defer ix.Close()
	return ix.Meta().Files, ix.Meta().Order
}

// killWithin starts the gpusearch command of args, kills it with SIGKILL
// at a random instant within 1.5 times took (what it takes when left to
// finish), waits for it, and returns the instant.
func killWithin(t *testing.T, took time.Duration, args ...string) time.Duration {
	t.Helper()
	cmd := cliCommand(t, args...)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	delay := rand.N(took + took/2)
	time.Sleep(delay)
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
	return delay
}

// TestIndexKilledAnyInstant kills `index` with SIGKILL at random instants
// while it rebuilds an index in place, with a small memory budget so that
// it spills runs: after every kill the output directory holds the old
// index or the new one, complete and opening, never none; the next run
// removes what the killed ones left.
func TestIndexKilledAnyInstant(t *testing.T) {
	kills := 8
	if s := os.Getenv(killSweepEnv); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 {
			t.Fatalf("%s=%q: want a positive count", killSweepEnv, s)
		}
		kills = n
	}
	// The runs alternate between two indexes of the sample crawl, in URL
	// order and in crawl order: the same documents in other files, told
	// apart by the order meta.json records. Open checks that the one it
	// finds is complete.
	args := func(order, out string) []string {
		return []string{"index", "--quiet", "--memory-mb", "1", "--order", order, "--out", out, sampleCrawl}
	}
	other := map[string]string{"url": "crawl", "crawl": "url"}
	out := filepath.Join(t.TempDir(), "out")
	start := time.Now()
	mustRun(t, args("url", out)...)
	took := time.Since(start)
	cur := "url"
	landed := map[string]int{}
	for k := range kills {
		delay := killWithin(t, took, args(other[cur], out)...)
		_, now := committed(t, out)
		what := map[bool]string{true: "old", false: "new"}[now == cur]
		landed[what]++
		t.Logf("kill %d after %v: the %s index", k, delay.Round(time.Millisecond), what)
		cur = now
	}
	t.Logf("%d kills left the old index, %d the new", landed["old"], landed["new"])
	mustRun(t, args(other[cur], out)...)
	if _, now := committed(t, out); now == cur {
		t.Errorf("a completed run left the old index")
	}
	onlyCommitted(t, out, "run")
}

// onlyCommitted checks that the index directory out holds its lock, its
// commit point and the generation that names, and nothing else: what
// killed runs left behind is gone once a run of what completes.
func onlyCommitted(t *testing.T, out, what string) {
	t.Helper()
	m, err := index.ReadMeta(out)
	if err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(out)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	want := []string{".lock", m.Generation, "meta.json"}
	if len(m.Segments) > 0 {
		want = []string{".lock", "meta.json"}
		for _, s := range m.Segments {
			want = append(want, s.Meta.Generation)
			if s.Deletions != nil {
				want = append(want, s.Deletions.File)
			}
		}
		slices.Sort(want)
	}
	if !slices.Equal(names, want) {
		t.Errorf("after a completed %s the output directory holds %v, want %v: leftovers of killed runs stay", what, names, want)
	}
}

// TestIndexRefusesToShrink indexes an empty crawl (an unmounted disk)
// into a directory holding an index: refused, the old index intact, unless
// --force.
func TestIndexRefusesToShrink(t *testing.T) {
	out := filepath.Join(t.TempDir(), "out")
	empty := t.TempDir()
	mustRun(t, "index", "--quiet", "--out", out, sampleCrawl)
	before, _ := committed(t, out)
	res := runCLI(t, "index", "--quiet", "--out", out, empty)
	if res.code != 1 || !strings.Contains(res.stderr, "--force") || !strings.Contains(res.stderr, "0") {
		t.Errorf("index of an empty crawl over an index: exit %d, stderr %q; want 1 and a message naming --force", res.code, res.stderr)
	}
	if after, _ := committed(t, out); !maps.Equal(after, before) {
		t.Errorf("the refused run changed the index")
	}
	mustRun(t, "index", "--quiet", "--force", "--out", out, empty)
	ix, err := index.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	if ix.NumDocs() != 0 {
		t.Errorf("index --force of an empty crawl: %d documents, want 0", ix.NumDocs())
	}
}
