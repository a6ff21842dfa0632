package rules

import "fmt"

// The words of every rule's message, in one place: a count's agreement and a
// long list cut short.

// verbS is a third-person verb's ending for n subjects: "reads" for one, "read" for more.
func verbS(n int) string {
	if n == 1 {
		return "s"
	}
	return ""
}

// nounS is a noun's plural ending: "container" for one, "containers" for more.
func nounS(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// isAre is the verb "to be" for n subjects.
func isAre(n int) string {
	if n == 1 {
		return "is"
	}
	return "are"
}

// andMore counts what a message leaves out: "and 3 more".
func andMore(n int) string { return fmt.Sprintf("and %d more", n) }
