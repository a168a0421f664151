package main

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/doc"
	"go/doc/comment"
	"go/printer"
	"html/template"
	"strings"
)

// link is one entry of a list of links.
type link struct {
	Href string
	Text string
	Note string // text after the link, e.g. a synopsis
}

// item is a declaration with its documentation.
type item struct {
	ID   string
	Head string
	Decl string
	Doc  template.HTML
}

// page holds the fields that the shared layout reads.
type page struct {
	Title  string
	Root   string // relative path from the page's folder to the host root
	Crumbs []link // breadcrumb trail, ending with the page's package
}

// rootPage is the list of all packages.
type rootPage struct {
	page
	Packages []link
}

// pkgPage is a package's overview.
type pkgPage struct {
	page
	Name       string
	ImportPath string
	Doc        template.HTML
	Funcs      []link
	Types      []typeEntry
	Consts     []item
	Vars       []item
}

// typeEntry is a type in a package's index, with its functions and methods.
type typeEntry struct {
	link
	Subs []link
}

// symPage is the page of one function or type.
type symPage struct {
	page
	Kind    string // "func" or "type"
	Name    string
	Decl    string
	Doc     template.HTML
	Consts  []item
	Vars    []item
	Funcs   []link // constructors listed on a type's page
	Methods []item
}

// site holds what every page's rendering needs to know about the others.
type site struct {
	pages map[string]map[string]string // import path -> name -> file of its own page
}

// funcFile and typeFile name the page of a function or type. The prefix
// keeps a function named Index apart from the package's index.html.
func funcFile(name string) string { return "func." + name + ".html" }
func typeFile(name string) string { return "type." + name + ".html" }

// renderSite writes the root page, then each package's pages.
func renderSite(w *writer, pkgs []*pkgInfo) error {
	s := &site{pages: make(map[string]map[string]string)}
	for _, p := range pkgs {
		names := make(map[string]string)
		for _, f := range p.doc.Funcs {
			names[f.Name] = funcFile(f.Name)
		}
		for _, t := range p.doc.Types {
			names[t.Name] = typeFile(t.Name)
			for _, f := range t.Funcs {
				names[f.Name] = funcFile(f.Name)
			}
		}
		s.pages[p.importPath] = names
	}
	root := rootPage{page: page{Title: "Standard library - Go Packages"}}
	for _, p := range pkgs {
		root.Packages = append(root.Packages, link{
			Href: p.importPath + "/index.html",
			Text: p.importPath,
			Note: p.doc.Synopsis(p.doc.Doc),
		})
	}
	if err := s.execute(w, "index.html", "root", root); err != nil {
		return err
	}
	for _, p := range pkgs {
		if err := s.renderPackage(w, p); err != nil {
			return err
		}
	}
	return nil
}

// execute renders the named template with data and writes it at rel.
func (s *site) execute(w *writer, rel, name string, data any) error {
	var buf bytes.Buffer
	if err := templates.ExecuteTemplate(&buf, name, data); err != nil {
		return err
	}
	return w.write(rel, buf.Bytes())
}

// pkgRenderer renders the pages of one package.
type pkgRenderer struct {
	site *site
	p    *pkgInfo
	pr   *comment.Printer
	base page
	err  error // first error from printing a declaration
}

// renderPackage writes a package's overview and one page per function and type.
func (s *site) renderPackage(w *writer, p *pkgInfo) error {
	dp := p.doc
	r := &pkgRenderer{site: s, p: p, pr: dp.Printer()}
	r.pr.DocLinkURL = r.docLinkURL
	r.base = page{
		Root: strings.Repeat("../", strings.Count(p.importPath, "/")+1),
		Crumbs: []link{
			{Href: strings.Repeat("../", strings.Count(p.importPath, "/")+1) + "index.html", Text: "Standard library"},
			{Href: "index.html", Text: p.importPath},
		},
	}
	dir := p.importPath + "/"

	pp := pkgPage{page: r.base, Name: dp.Name, ImportPath: p.importPath, Doc: r.html(dp.Doc)}
	pp.Title = dp.Name + " package - " + p.importPath + " - Go Packages"
	for _, f := range dp.Funcs {
		pp.Funcs = append(pp.Funcs, link{Href: funcFile(f.Name), Text: "func " + f.Name})
	}
	for _, t := range dp.Types {
		e := typeEntry{link: link{Href: typeFile(t.Name), Text: "type " + t.Name}}
		for _, f := range t.Funcs {
			e.Subs = append(e.Subs, link{Href: funcFile(f.Name), Text: "func " + f.Name})
		}
		for _, m := range t.Methods {
			e.Subs = append(e.Subs, link{Href: typeFile(t.Name) + "#" + t.Name + "." + m.Name, Text: "func (" + m.Recv + ") " + m.Name})
		}
		pp.Types = append(pp.Types, e)
	}
	pp.Consts = r.values(dp.Consts)
	pp.Vars = r.values(dp.Vars)
	if err := r.write(w, dir+"index.html", "package", pp); err != nil {
		return err
	}

	for _, f := range dp.Funcs {
		if err := r.write(w, dir+funcFile(f.Name), "symbol", r.funcPage(f)); err != nil {
			return err
		}
	}
	for _, t := range dp.Types {
		if err := r.write(w, dir+typeFile(t.Name), "symbol", r.typePage(t)); err != nil {
			return err
		}
		for _, f := range t.Funcs {
			if err := r.write(w, dir+funcFile(f.Name), "symbol", r.funcPage(f)); err != nil {
				return err
			}
		}
	}
	return nil
}

// write renders a page of the package unless a declaration failed to print.
func (r *pkgRenderer) write(w *writer, rel, name string, data any) error {
	if r.err != nil {
		return r.err
	}
	return r.site.execute(w, rel, name, data)
}

// funcPage builds the page of a package-level function.
func (r *pkgRenderer) funcPage(f *doc.Func) symPage {
	sp := symPage{page: r.base, Kind: "func", Name: f.Name,
		Decl: r.decl(f.Decl), Doc: r.html(f.Doc)}
	sp.Title = r.p.doc.Name + "." + f.Name + " - " + r.p.importPath + " - Go Packages"
	return sp
}

// typePage builds the page of a type, with its values, constructors and methods.
func (r *pkgRenderer) typePage(t *doc.Type) symPage {
	sp := symPage{page: r.base, Kind: "type", Name: t.Name,
		Decl: r.decl(t.Decl), Doc: r.html(t.Doc)}
	sp.Title = r.p.doc.Name + "." + t.Name + " - " + r.p.importPath + " - Go Packages"
	sp.Consts = r.values(t.Consts)
	sp.Vars = r.values(t.Vars)
	for _, f := range t.Funcs {
		sp.Funcs = append(sp.Funcs, link{Href: funcFile(f.Name), Text: r.decl(f.Decl)})
	}
	for _, m := range t.Methods {
		sp.Methods = append(sp.Methods, item{
			ID:   t.Name + "." + m.Name,
			Head: "func (" + m.Recv + ") " + m.Name,
			Decl: r.decl(m.Decl),
			Doc:  r.html(m.Doc),
		})
	}
	return sp
}

// values renders a list of constant or variable declarations.
func (r *pkgRenderer) values(vs []*doc.Value) []item {
	var items []item
	for _, v := range vs {
		it := item{Decl: r.decl(v.Decl), Doc: r.html(v.Doc)}
		if len(v.Names) > 0 {
			it.ID = v.Names[0]
		}
		items = append(items, it)
	}
	return items
}

// decl prints a declaration as gofmt would, without its doc comment, which
// the page shows as HTML.
func (r *pkgRenderer) decl(n ast.Node) string {
	switch d := n.(type) {
	case *ast.FuncDecl:
		c := *d
		c.Doc = nil
		n = &c
	case *ast.GenDecl:
		c := *d
		c.Doc = nil
		n = &c
	}
	var buf bytes.Buffer
	cfg := printer.Config{Mode: printer.UseSpaces | printer.TabIndent, Tabwidth: 8}
	if err := cfg.Fprint(&buf, r.p.fset, n); err != nil && r.err == nil {
		r.err = fmt.Errorf("print %s: %w", r.p.importPath, err)
	}
	return buf.String()
}

// html renders a doc comment.
func (r *pkgRenderer) html(text string) template.HTML {
	// The comment printer escapes all text and URLs it writes.
	return template.HTML(r.pr.HTML(r.p.doc.Parser().Parse(text)))
}

// docLinkURL maps a doc comment link to a page of the crawl, or to the live
// site for a package the crawl does not hold.
func (r *pkgRenderer) docLinkURL(l *comment.DocLink) string {
	ip := l.ImportPath
	if ip == "" {
		ip = r.p.importPath
	}
	names, ok := r.site.pages[ip]
	if !ok {
		u := "https://pkg.go.dev/" + ip
		if l.Name != "" {
			u += "#" + strings.TrimPrefix(l.Recv+"."+l.Name, ".")
		}
		return u
	}
	prefix := ""
	if ip != r.p.importPath {
		prefix = r.base.Root + ip + "/"
	}
	switch {
	case l.Name == "":
		return prefix + "index.html"
	case l.Recv != "":
		return prefix + typeFile(l.Recv) + "#" + l.Recv + "." + l.Name
	case names[l.Name] != "":
		return prefix + names[l.Name]
	default:
		return prefix + "index.html#" + l.Name
	}
}
