package procid

import "testing"

// The command name may hold spaces and ") (": fields count from the last ')'.
func TestParseStat(t *testing.T) {
	line := "4242 (evil) (name 1 2) S 1 4242 4242 0 -1 4194560 100 0 0 0 1 2 0 0 20 0 1 0 987654 1000 100\n"
	n, err := parseStat([]byte(line))
	if err != nil || n != 987655 {
		t.Fatalf("got %d, %v; want 987655", n, err)
	}
	if _, err := parseStat([]byte("4242 (x) S 1 2")); err == nil {
		t.Error("a short line parsed")
	}
}
