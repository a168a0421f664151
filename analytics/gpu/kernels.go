package gpu

// kernels names every kernel of kernels/analytics.ptx, which UploadCorpus
// loads (TestKernelsListed keeps the list whole).
var kernels = []string{
	"tadoc_root_weights", "tadoc_topdown_level", "tadoc_tables_level", "tadoc_files",
	"tadoc_chunk_counts", "tadoc_compact", "tadoc_row_starts",
	"tadoc_seq_tables_level", "tadoc_seq_files",
	"tadoc_seq_chunk_counts", "tadoc_seq_compact", "tadoc_seq_row_starts",
	"sort_histogram", "sort_scatter", "scan_sums", "scan_blocks", "scan_apply",
	"tadoc_pairs", "tadoc_csr_starts", "tadoc_split", "tadoc_seq_pairs", "tadoc_seq_heads", "tadoc_seq_ids",
	"tadoc_td_files", "tadoc_td_level", "tadoc_seq_td_files", "tadoc_seq_td_level",
	"text_counts", "text_words",
}
