// Package all imports every codec family for its side effect of
// registering its codecs. Programs that open indexes import it blank.
package all

import (
	_ "github.com/gpusearch/gpusearch/codecplugins/bp"
	_ "github.com/gpusearch/gpusearch/codecplugins/ef"
	_ "github.com/gpusearch/gpusearch/codecplugins/gpuformat"
	_ "github.com/gpusearch/gpusearch/codecplugins/pfor"
	_ "github.com/gpusearch/gpusearch/codecplugins/rice"
	_ "github.com/gpusearch/gpusearch/codecplugins/simple"
	_ "github.com/gpusearch/gpusearch/codecplugins/varint"
)
