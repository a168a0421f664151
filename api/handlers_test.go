package api

import (
	"testing"

	"github.com/gpusearch/gpusearch/internal/hugemem"
)

// TestStatsMemory checks that /stats says where the served postings live,
// as server.index_memory asks: auto keeps the small test index in memory
// where the kernel gives huge pages.
func TestStatsMemory(t *testing.T) {
	auto := "mapped"
	if hugemem.Total() > 0 && hugemem.Available() {
		auto = "huge"
	}
	for _, tc := range []struct{ config, want string }{{"mapped", "mapped"}, {"huge", "huge"}, {"auto", auto}} {
		cfg := testConfig(indexA)
		cfg.Server.IndexMemory = tc.config
		_, ts := newTestServer(t, cfg)
		var st StatsResponse
		getJSON(t, ts.Client(), ts.URL+"/stats", &st)
		if st.Index.Memory != tc.want {
			t.Errorf("server.index_memory %s: /stats index.memory = %q, want %q", tc.config, st.Index.Memory, tc.want)
		}
	}
}
