// Package greet says hello. It exists to test mkcrawl: its comments hold
// markup such as <b>bold</b> & "quotes", which must come out escaped.
package greet

// Greeting is the default greeting.
const Greeting = "hello"

// Greeter greets people; see [Greeter.Hello] and [Index].
type Greeter struct {
	// Name is who is greeted.
	Name   string
	secret int
}

// NewGreeter returns a Greeter for name.
func NewGreeter(name string) *Greeter { return &Greeter{Name: name} }

// Hello returns the greeting for g.Name.
func (g *Greeter) Hello() string { return Greeting + " " + g.Name }

// Index reports the position of name in names, or -1; see [greet/loud.Shout].
func Index(names []string, name string) int {
	for i, n := range names {
		if n == name {
			return i
		}
	}
	return -1
}
