package main

import "html/template"

// templates renders every page. "head" and "foot" are the layout shared by
// all pages; the style, script and noscript blocks in them are boilerplate
// that an indexer must not index.
var templates = template.Must(template.New("").Parse(`
{{- define "head" -}}
<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>{{.Title}}</title>
<style>pre { background: #f0f1f2; padding: 0.75rem; overflow-x: auto; }</style>
</head>
<body>
{{- with .Crumbs}}
<nav>{{range $i, $c := .}}{{if $i}} &gt; {{end}}<a href="{{$c.Href}}">{{$c.Text}}</a>{{end}}</nav>
{{- end}}
<main>
{{- end}}

{{- define "foot"}}
</main>
<footer>Copyright The Go Authors. BSD-3-Clause license.</footer>
<noscript>Turn on JavaScript for keyboard scrolling.</noscript>
<script>document.querySelectorAll("pre").forEach(function (el) { el.tabIndex = 0; });</script>
</body>
</html>
{{end}}

{{- define "root"}}{{template "head" .}}
<h1>Standard library</h1>
<table>
<tr><th>Package</th><th>Synopsis</th></tr>
{{- range .Packages}}
<tr><td><a href="{{.Href}}">{{.Text}}</a></td><td>{{.Note}}</td></tr>
{{- end}}
</table>
{{- template "foot" .}}{{end}}

{{- define "values"}}
{{- range .}}
<div{{with .ID}} id="{{.}}"{{end}}>
<pre>{{.Decl}}</pre>
{{.Doc}}
</div>
{{- end}}
{{- end}}

{{- define "package"}}{{template "head" .}}
<h1>Package {{.Name}}</h1>
<p><code>import "{{.ImportPath}}"</code></p>
<section id="overview">
<h2>Overview</h2>
{{.Doc}}
</section>
<section id="index">
<h2>Index</h2>
<ul>
{{- range .Funcs}}
<li><a href="{{.Href}}">{{.Text}}</a></li>
{{- end}}
{{- range .Types}}
<li><a href="{{.Href}}">{{.Text}}</a>
{{- with .Subs}}
<ul>
{{- range .}}
<li><a href="{{.Href}}">{{.Text}}</a></li>
{{- end}}
</ul>
{{- end}}
</li>
{{- end}}
</ul>
</section>
{{- with .Consts}}
<section id="constants">
<h2>Constants</h2>
{{- template "values" .}}
</section>
{{- end}}
{{- with .Vars}}
<section id="variables">
<h2>Variables</h2>
{{- template "values" .}}
</section>
{{- end}}
{{- template "foot" .}}{{end}}

{{- define "symbol"}}{{template "head" .}}
<h1>{{.Kind}} {{.Name}}</h1>
<pre>{{.Decl}}</pre>
{{.Doc}}
{{- with .Consts}}
<h2>Constants</h2>
{{- template "values" .}}
{{- end}}
{{- with .Vars}}
<h2>Variables</h2>
{{- template "values" .}}
{{- end}}
{{- with .Funcs}}
<h2>Functions</h2>
<ul>
{{- range .}}
<li><a href="{{.Href}}">{{.Text}}</a></li>
{{- end}}
</ul>
{{- end}}
{{- with .Methods}}
<h2>Methods</h2>
{{- range .}}
<h3 id="{{.ID}}">{{.Head}}</h3>
<pre>{{.Decl}}</pre>
{{.Doc}}
{{- end}}
{{- end}}
{{- template "foot" .}}{{end}}
`))
