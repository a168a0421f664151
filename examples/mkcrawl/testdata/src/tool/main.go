// Command tool is a main package, so the crawl leaves it out.
package main

func main() {}
