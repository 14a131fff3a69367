// Package exchange is spotbot's adapter to the spot exchange REST interface.
//
// One [Client] carries every endpoint of the interface, grouped by area:
// [Client.Market] for public market data, [Client.Spot] for the spot account
// and trading, [Client.Sub] for sub-accounts and [Client.Wallet] for wallet
// operations, transfers and dust conversion. Every endpoint is declared once in
// the endpoint table ([Endpoints]); the client signs, budgets and routes from
// it, and so does the simulated server.
//
// Every price, quantity, amount, balance and fee is a [decimal.Decimal].
// Replies are decoded tolerantly: integers and booleans may arrive as JSON
// strings, and the documented shape variants of the live service are all
// accepted.
//
// Errors are typed: [*APIError] for a reply with an error code, [*RateLimitError]
// for HTTP 429, [*BanError] for HTTP 418, [*UnknownOutcomeError] when the
// request may have been acted upon but no reliable reply arrived (5XX, or a
// transport failure after the request was written), [*ValidationError] for
// arguments refused before any request, and [*DecodeError] for replies that do
// not decode. An order refused before sending is the exception: it is the
// [*RuleError] of [NewOrder.Validate] or [ValidateBatch], an *APIError with
// the code and message the exchange answers for it, so a malformed order is
// the same error from the client, the simulator and the risk gate.
package exchange
