package config

import (
	"reflect"
	"strings"
	"testing"
)

func TestDefaultFileMatchesDefault(t *testing.T) {
	c, err := Load("../configs/default.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if want := Default(); !reflect.DeepEqual(c, want) {
		t.Errorf("configs/default.yaml = %+v\nwant Default() = %+v", c, want)
	}
}

func TestParse(t *testing.T) {
	tests := []struct {
		name    string
		yaml    string
		wantErr string
		check   func(Config) bool
	}{
		{"empty keeps defaults", "", "", func(c Config) bool { return c.Index.DocIDCodec == "fastpfor" }},
		{"override one key", "index:\n  docid_codec: varint-SU\n", "", func(c Config) bool {
			return c.Index.DocIDCodec == "varint-SU" && c.Index.FreqCodec == "fastpfor"
		}},
		{"duration", "server:\n  timeout: 250ms\n", "", func(c Config) bool { return c.Server.Timeout.Milliseconds() == 250 }},
		{"unknown key", "index:\n  codec: bp128\n", "field codec not found", nil},
		{"bad order", "index:\n  order: alphabetical\n", "index.order", nil},
		{"bad mode", "search:\n  mode: xor\n", "search.mode", nil},
		{"snippet bytes", "search:\n  snippet_bytes: 0\n", "", func(c Config) bool { return c.Search.SnippetBytes == 0 }},
		{"bad snippet bytes", "search:\n  snippet_bytes: -1\n", "search.snippet_bytes", nil},
		{"snippet workers per core", "search:\n  snippet_workers: 0\n", "", func(c Config) bool { return c.Search.SnippetWorkers == 0 }},
		{"bad snippet workers", "search:\n  snippet_workers: -2\n", "search.snippet_workers", nil},
		{"bad b", "bm25:\n  b: 2\n", "bm25", nil},
		{"title weight", "index:\n  title_weight: 2\n", "", func(c Config) bool { return c.Index.TitleWeight == 2 }},
		{"negative title weight", "index:\n  title_weight: -1\n", "index.title_weight", nil},
		{"title weight too large", "index:\n  title_weight: 101\n", "index.title_weight", nil},
		{"fractional title weight", "index:\n  title_weight: 1.5\n", "want an integer", nil},
		{"title weight as text", "index:\n  title_weight: two\n", "want an integer", nil},
		{"not yaml", "index: [", "yaml", nil},
		{"gpu workers", "gpu:\n  workers: 1\n", "", func(c Config) bool { return c.GPU.Workers == 1 }},
		{"no gpu workers", "gpu:\n  workers: 0\n", "gpu.workers", nil},
		{"gpu wait", "gpu:\n  wait: block\n", "", func(c Config) bool { return c.GPU.Wait == "block" }},
		{"bad gpu wait", "gpu:\n  wait: sleep\n", "gpu.wait", nil},
		{"gc percent", "server:\n  gc_percent: 0\n", "", func(c Config) bool { return c.Server.GCPercent == 0 }},
		{"bad gc percent", "server:\n  gc_percent: -1\n", "server.gc_percent", nil},
		{"admin without a token", "server:\n  admin_reload: true\n", "server.admin_reload needs", nil},
		{"admin token", "server:\n  admin_reload: true\n  admin_token: 0123456789abcdef\n", "", func(c Config) bool { return c.Server.AdminReload }},
		{"admin token file", "server:\n  admin_reload: true\n  admin_token_file: /run/token\n", "", func(c Config) bool { return c.Server.AdminTokenFile == "/run/token" }},
		{"short admin token", "server:\n  admin_token: abc\n", "at least 16", nil},
		{"two admin tokens", "server:\n  admin_token: 0123456789abcdef\n  admin_token_file: t\n", "not both", nil},
		{"hosts", "server:\n  hosts: [search.example]\n", "", func(c Config) bool { return len(c.Server.Hosts) == 1 }},
		{"write timeout under timeout", "server:\n  write_timeout: 1s\n", "server.write_timeout", nil},
		{"zero read timeout", "server:\n  read_timeout: 0s\n", "read_timeout", nil},
		{"zero header limit", "server:\n  max_header_bytes: 0\n", "max_header_bytes", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := Default()
			err := Parse([]byte(tt.yaml), &c)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("Parse(%q) error = %v, want one containing %q", tt.yaml, err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("Parse(%q): %v", tt.yaml, err)
			}
			if !tt.check(c) {
				t.Errorf("Parse(%q) = %+v", tt.yaml, c)
			}
		})
	}
}
