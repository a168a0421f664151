package gpu

// analyticsKernels names every kernel of kernels/analytics.ptx, which the
// analytics engine loads (TestAnalyticsKernelsListed keeps the list whole).
var analyticsKernels = []string{
	"tadoc_root_weights", "tadoc_topdown_threads", "tadoc_topdown_groups", "tadoc_topdown_blocks",
	"tadoc_tables_threads", "tadoc_tables_groups", "tadoc_tables_blocks", "tadoc_files",
	"tadoc_chunk_counts", "tadoc_compact", "tadoc_row_starts",
	"tadoc_seq_tables_threads", "tadoc_seq_tables_groups", "tadoc_seq_tables_blocks", "tadoc_seq_files",
	"tadoc_seq_chunk_counts", "tadoc_seq_compact", "tadoc_seq_row_starts",
	"sort_histogram", "sort_scatter", "scan_sums", "scan_blocks", "scan_apply",
	"tadoc_pairs", "tadoc_csr_starts", "tadoc_split", "tadoc_seq_pairs", "tadoc_seq_heads", "tadoc_seq_ids",
	"tadoc_td_files", "tadoc_td_threads", "tadoc_td_groups", "tadoc_td_blocks",
	"tadoc_seq_td_files", "tadoc_seq_td_threads", "tadoc_seq_td_groups", "tadoc_seq_td_blocks",
}
