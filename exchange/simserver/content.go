package simserver

import (
	"mime"

	"github.com/spotbot/spotbot/exchange"
)

// checkContentType applies the facts file's rule: a request without a body
// needs no Content-Type (the most widely used clients send none on GET, and
// curl sends none at all), while a body must be declared as JSON or as
// form-encoded parameters; anything else, a missing type included, is
// 700013. The header of a request without a body is not read: it describes
// nothing.
func checkContentType(header string, body []byte) *apiError {
	if len(body) == 0 {
		return nil
	}
	mt, _, err := mime.ParseMediaType(header)
	if err == nil && (mt == "application/json" || mt == "application/x-www-form-urlencoded") {
		return nil
	}
	return badParam(exchange.CodeInvalidContentType, "Invalid content Type")
}
