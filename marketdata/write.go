package marketdata

import (
	"bufio"
	"fmt"
	"io"
	"strconv"

	"github.com/shopspring/decimal"

	"github.com/spotbot/spotbot/exchange"
)

// WriteCSV writes klines in the format ReadCSV reads, header first. Decimals
// keep their scale (16713.080000 stays 16713.080000), so a file read and
// written again is unchanged byte for byte.
func WriteCSV(w io.Writer, ks []exchange.Kline) error {
	bw := bufio.NewWriterSize(w, 64<<10)
	bw.WriteString(Header)
	bw.WriteByte('\n')
	buf := make([]byte, 0, 128)
	for _, k := range ks {
		buf = buf[:0]
		buf = strconv.AppendInt(buf, k.OpenTime.UnixMilli(), 10)
		for _, d := range [5]decimal.Decimal{k.Open, k.High, k.Low, k.Close, k.Volume} {
			buf = append(buf, ',')
			buf = appendDecimal(buf, d)
		}
		buf = append(buf, '\n')
		if _, err := bw.Write(buf); err != nil {
			return fmt.Errorf("marketdata: writing csv: %w", err)
		}
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("marketdata: writing csv: %w", err)
	}
	return nil
}

// appendDecimal writes d as plain text keeping its scale: trailing zeros
// after the point are part of the source's text and are kept.
func appendDecimal(dst []byte, d decimal.Decimal) []byte {
	exp := d.Exponent()
	var digits []byte
	neg := d.IsNegative()
	if d.NumDigits() <= 18 {
		c := d.CoefficientInt64()
		if c < 0 {
			c = -c
		}
		var tmp [24]byte
		digits = strconv.AppendInt(tmp[:0], c, 10)
	} else {
		digits = d.Coefficient().Append(nil, 10)
		if neg {
			digits = digits[1:]
		}
	}
	if neg {
		dst = append(dst, '-')
	}
	if exp >= 0 {
		dst = append(dst, digits...)
		if len(digits) == 1 && digits[0] == '0' {
			return dst
		}
		for range exp {
			dst = append(dst, '0')
		}
		return dst
	}
	scale := int(-exp)
	if len(digits) <= scale {
		dst = append(dst, '0', '.')
		for i := len(digits); i < scale; i++ {
			dst = append(dst, '0')
		}
		return append(dst, digits...)
	}
	dst = append(dst, digits[:len(digits)-scale]...)
	dst = append(dst, '.')
	return append(dst, digits[len(digits)-scale:]...)
}
