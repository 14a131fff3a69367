// Package spelling suggests the word a mistyped one was meant to be, as
// `did you mean max_drawdown?` for max_drawdownn.
package spelling

// Closest returns the candidate nearest to word by edit distance, when it
// is near enough to be a likely typo: at most 2 edits, or a third of the
// word's length for longer words. Ties go to the earlier candidate.
func Closest(word string, candidates []string) (string, bool) {
	limit := max(2, len(word)/3)
	best, bestD := "", limit+1
	for _, c := range candidates {
		if d := Distance(word, c); d < bestD {
			best, bestD = c, d
		}
	}
	return best, best != ""
}

// Distance is the Levenshtein distance between a and b, counted in bytes
// (configuration keys are ASCII).
func Distance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
