package api_test

import (
	"encoding/json"
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"
	"os"

	_ "github.com/gpusearch/gpusearch/codecplugins/all"

	"github.com/gpusearch/gpusearch/api"
	"github.com/gpusearch/gpusearch/config"
	"github.com/gpusearch/gpusearch/index"
)

// ExampleNew serves a two-document index and asks it for the best hit
// (engine=auto, the default, is the CPU engine here). With no GPU engine
// linked in, engine=gpu answers 503.
func ExampleNew() {
	dir, err := os.MkdirTemp("", "api-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	w, err := index.NewWriter(dir, index.WriterOptions{DocIDCodec: "varint-SU", FreqCodec: "varint-SU"},
		[]uint32{3, 5}, []string{"http://a.test/", "http://b.test/"})
	if err != nil {
		log.Fatal(err)
	}
	if err := w.AddTerm("kernel", []uint32{0, 1}, []uint32{1, 2}); err != nil { // docids, frequencies
		log.Fatal(err)
	}
	if err := w.Close(); err != nil {
		log.Fatal(err)
	}

	cfg := config.Default()
	cfg.Server.Index = dir
	srv, err := api.New(api.Options{Config: cfg})
	if err != nil {
		log.Fatal(err)
	}
	defer srv.Close()
	ts := httptest.NewServer(srv.Handler())
	defer ts.Close()
	resp, err := http.Get(ts.URL + "/search?q=kernels&k=1")
	if err != nil {
		log.Fatal(err)
	}
	defer resp.Body.Close()
	var sr api.SearchResponse
	if err := json.NewDecoder(resp.Body).Decode(&sr); err != nil {
		log.Fatal(err)
	}
	fmt.Println(resp.StatusCode, sr.Engine, len(sr.Hits), sr.Hits[0].URL)
	resp, err = http.Get(ts.URL + "/search?q=kernels&engine=gpu")
	if err != nil {
		log.Fatal(err)
	}
	defer resp.Body.Close()
	fmt.Println(resp.StatusCode)
	// Output:
	// 200 cpu 1 http://b.test/
	// 503
}
