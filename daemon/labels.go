package daemon

import (
	"github.com/spotbot/spotbot/exchange"
	"github.com/spotbot/spotbot/risk"
)

// RefusalReasons lists the rules a refused order can be counted under
// (Counters.OrdersRefused), besides "exchange:<code>": the risk gate's,
// the exchange's symbol and request rules, and the bot's own guards. The
// metrics list each at zero before it first happens, so that a rate() or
// an alert over one works from the start.
func RefusalReasons() []string {
	return []string{
		risk.RuleUnknownSymbol, risk.RuleSTPGroup, risk.RuleBalance, risk.RuleMaxPosition, risk.RuleMaxOpenOrders,
		risk.RuleMaxOrderValue, risk.RuleKillSwitch, risk.RuleRateBudget, risk.RuleIPBanned,
		exchange.RuleSymbolStatus, exchange.RuleAPITradable, exchange.RuleTradeSide, exchange.RuleOrderType,
		exchange.RuleParameters, exchange.RulePrecision, exchange.RuleMinAmount, exchange.RuleMaxAmount,
		exchange.RulePercentPrice, exchange.RuleSTPMode, exchange.RuleNoMarketPrice, exchange.RuleSymbolNotFound,
		exchange.RuleClientOrderID, exchange.RuleBatch,
		RuleClockOffset, RuleShutdown, RuleStore,
	}
}

// APIErrorKinds lists the kinds of failed exchange calls counted in
// Counters.APIErrors besides API codes and "http-<status>".
func APIErrorKinds() []string {
	return []string{"ip-banned", "rate-limit", "unknown-outcome", "transport"}
}
