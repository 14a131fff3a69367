package indicator_test

import (
	"fmt"

	"github.com/spotbot/spotbot/strategy/indicator"
)

func ExampleSMA() {
	sma, err := indicator.NewSMA(3)
	if err != nil {
		panic(err)
	}
	for _, close := range []float64{10, 11, 12, 13} {
		sma.Update(close)
		fmt.Println(sma.Ready(), sma.Value())
	}
	// Output:
	// false 0
	// false 0
	// true 11
	// true 12
}

func ExampleMACD() {
	m, err := indicator.NewMACD(2, 3, 2)
	if err != nil {
		panic(err)
	}
	for _, close := range []float64{1, 3, 2, 6, 4, 8} {
		m.Update(close)
		fmt.Printf("line %.4f ready %v signal %.4f histogram %.4f\n", m.Value(), m.Ready(), m.Signal(), m.Histogram())
	}
	// Output:
	// line 0.0000 ready false signal 0.0000 histogram 0.0000
	// line 0.0000 ready false signal 0.0000 histogram 0.0000
	// line 0.0000 ready false signal 0.0000 histogram 0.0000
	// line 0.6667 ready true signal 0.3333 histogram 0.3333
	// line 0.2222 ready true signal 0.2593 histogram -0.0370
	// line 0.7407 ready true signal 0.5802 histogram 0.1605
}

func ExampleNewSMA_error() {
	_, err := indicator.NewSMA(0)
	fmt.Println(err)
	// Output: indicator: NewSMA: n must be at least 1, got 0
}

func ExampleVWAP_Reset() {
	// A cumulative VWAP anchored at each session start.
	w := indicator.NewVWAP()
	w.Update(11, 9, 10, 2) // typical price 10
	w.Update(14, 12, 13, 1)
	fmt.Println(w.Value())
	w.Reset() // a new session
	w.Update(21, 19, 20, 5)
	fmt.Println(w.Value())
	// Output:
	// 11
	// 20
}
