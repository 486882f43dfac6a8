// Package calc is the demo workspace: each function has a bug for the agent to fix.
package calc

// Add returns a + b.
func Add(a, b int) int {
	return a - b // BUG(add)
}

// Max returns the larger of a and b.
func Max(a, b int) int {
	if a < b { // BUG(max)
		return a
	}
	return b
}

// Reverse returns s with its characters in reverse order.
func Reverse(s string) string {
	return s // BUG(reverse)
}
