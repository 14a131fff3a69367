package spelling

import "testing"

func TestClosest(t *testing.T) {
	t.Parallel()
	known := []string{"max_position_value", "max_open_orders", "max_order_value", "max_daily_loss", "max_drawdown"}
	tests := []struct {
		word, want string
		ok         bool
	}{
		{"max_drawdownn", "max_drawdown", true},
		{"max_drawdown", "max_drawdown", true},
		{"max_open_order", "max_open_orders", true},
		{"maxdailyloss", "max_daily_loss", true},
		{"colour", "", false},
	}
	for _, tt := range tests {
		got, ok := Closest(tt.word, known)
		if got != tt.want || ok != tt.ok {
			t.Errorf("Closest(%q) = %q, %v; want %q, %v", tt.word, got, ok, tt.want, tt.ok)
		}
	}
}

func TestDistance(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		a, b string
		want int
	}{{"", "", 0}, {"abc", "", 3}, {"kitten", "sitting", 3}, {"sorce", "source", 1}, {"level", "levle", 2}} {
		if got := Distance(tt.a, tt.b); got != tt.want {
			t.Errorf("Distance(%q, %q) = %d, want %d", tt.a, tt.b, got, tt.want)
		}
	}
}
