// Package extract turns one crawled file's bytes into the text that the
// analyzer reads.
//
// Classify decides from the file name, and for names without a known
// extension from the first bytes, whether a file is HTML, plain text or
// skipped. HTMLText keeps a page's title and visible text; PlainText keeps
// a text file's bytes. Both return valid UTF-8: invalid bytes become U+FFFD
// (docs/design.md: invalid UTF-8 is replaced, not fatal).
//
// HTML (docs/design.md, "Analysis"): the text nodes outside script, style,
// noscript and template elements, the title included, comments and
// attribute values not, with character references decoded, joined with one
// space between nodes.
//
// Titles (HTMLDoc, Title): a page's title element, else its first heading
// h1 to h6, else its first line of text; a text file's first non-blank
// line. White space is trimmed and collapsed, and a title is cut at
// MaxTitleBytes: the document store keeps it for result pages.
//
// Decisions:
//   - HTML is read with golang.org/x/net/html's streaming Tokenizer rather
//     than html.Parse: no tree is built, so time is linear and memory is
//     bounded by the output and the longest token, even on a page nested
//     100,000 elements deep. Skipped elements are tracked without a stack:
//     script, style and noscript are raw-text elements, whose content the
//     tokenizer returns as the single text token after the start tag
//     (noscript as if scripting were on, so its content is skipped as a
//     browser would hide it); template may contain markup, so a counter
//     tracks its nesting, and a template that is never closed hides the rest
//     of the page, as in a browser.
//   - Text nodes made only of ASCII white space are left out: they add no
//     terms, and leaving them out keeps the output short. Elements do not
//     join words: "foo<b>bar</b>" gives "foo bar", as the one-space rule says.
//   - The other raw-text elements (title, textarea, xmp, iframe, noembed,
//     noframes, plaintext) are text, as html.Parse would make them.
//   - Pages are assumed to be UTF-8; no charset sniffing is done. A page in
//     another encoding keeps its ASCII words and loses the rest to U+FFFD.
//   - Classify: .html and .htm (any case) are HTML; .txt and .md are text;
//     a known binary or non-prose extension (images, archives, fonts, media,
//     .css, .js, .json, .pdf, ...) is skipped without reading; any other name
//     is HTML if net/http.DetectContentType says text/html, else skipped.
package extract
