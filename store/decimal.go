package store

import (
	"fmt"

	"github.com/shopspring/decimal"

	"github.com/spotbot/spotbot/marketdata"
)

// decText is the stored form of a decimal: plain text with its scale kept,
// so 1.500 reads back as 1.500, not 1.5.
func decText(d decimal.Decimal) string {
	var buf [40]byte
	return string(marketdata.AppendDecimal(buf[:0], d))
}

// parseDec reads a stored decimal, naming the table, column and row when
// the text is not one (a file edited by hand, or corrupt).
func parseDec(s, table, column, row string) (decimal.Decimal, error) {
	d, err := marketdata.ParseDecimal([]byte(s))
	if err != nil {
		return decimal.Decimal{}, fmt.Errorf("store: %s %s of %s: %q is not a decimal", table, column, row, s)
	}
	return d, nil
}
