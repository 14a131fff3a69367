package exchange

// Error codes of the interface (spec section 7), plus 700013 from the facts
// file. Several codes share a meaning in the spec (30014 and 30021 both mean
// an invalid symbol); each keeps its own constant.
const (
	CodeUnknownOrder             = -2011
	CodeOperationNotAllowed      = 26
	CodeAPIKeyRequired           = 400
	CodeNoAuthority              = 401
	CodeAccessDenied             = 403
	CodeTooManyRequests          = 429
	CodeInternalError            = 500
	CodeServiceUnavailable       = 503
	CodeGatewayTimeout           = 504
	CodeSignatureFailed          = 602
	CodeUserNotExist             = 10001
	CodeBadSymbol                = 10007
	CodeUserIDNull               = 10015
	CodeInvalidAccessKey         = 10072
	CodeInvalidRequestTime       = 10073
	CodeAmountNull               = 10095
	CodeAmountTooManyDecimals    = 10096
	CodeAmountWrong              = 10097
	CodeRiskControl              = 10098
	CodeSubAccountNotOpened      = 10099
	CodeTransferCurrency         = 10100
	CodeInsufficientBalance      = 10101
	CodeAmountNotPositive        = 10102
	CodeTransferAccount          = 10103
	CodeTransferProcessing       = 10200
	CodeTransferInFailed         = 10201
	CodeTransferOutFailed        = 10202
	CodeTransferDisabled         = 10206
	CodeTransferForbidden        = 10211
	CodeWithdrawAddressInvalid   = 10212
	CodeNoAddressAvailable       = 10216
	CodeAssetFlowFailed          = 10219
	CodeCurrencyNull             = 10222
	CodeCurrencyNotExist         = 10232
	CodeIntermediateAccount      = 10259
	CodeWithdrawRiskControl      = 10265
	CodeRemarkTooLong            = 10268
	CodeFeatureUnavailable       = 11444
	CodeSubsystemNotSupported    = 20001
	CodeInternalSystemError      = 20002
	CodeRecordNotExist           = 22222
	CodeTradingSuspended         = 30000
	CodeDirectionNotAllowed      = 30001
	CodeBelowMinVolume           = 30002
	CodeAboveMaxVolume           = 30003
	CodeInsufficientPosition     = 30004
	CodeOversold                 = 30005
	CodeNoValidTradePrice        = 30010
	CodeInvalidSymbol            = 30014
	CodeTradingDisabled          = 30016
	CodeMarketOrderDisabled      = 30018
	CodeAPIMarketOrderDisabled   = 30019
	CodeNoSymbolPermission       = 30020
	CodeInvalidSymbol2           = 30021
	CodeNoOpponentOrder          = 30025
	CodeInvalidOrderIDs          = 30026
	CodeMaxPositionBuySuspended  = 30027
	CodeRiskControlSellSuspended = 30028
	CodeMaxOrderLimit            = 30029
	CodeMaxPosition              = 30032
	CodeOrderTypeNotAllowed      = 30041
	CodeParameterError           = 33333
	CodeParameterNull            = 44444
	CodeAccountAbnormal          = 60005
	CodePairBannedForAPI         = 70011
	CodeAPIKeyFormat             = 700001
	CodeSignatureInvalid         = 700002
	CodeTimestampOutsideWindow   = 700003
	CodeOrderIDMissing           = 700004
	CodeRecvWindowTooLarge       = 700005
	CodeIPNotWhitelisted         = 700006
	CodeNoEndpointPermission     = 700007
	CodeIllegalCharacters        = 700008
	CodeInvalidContentType       = 700013
	CodeRequestFailed            = 730000
	CodePairNotFound             = 730001
	CodeInputInvalid             = 730002
	CodeUnsupportedOperation     = 730003
	CodeUnusualUserStatus        = 730100
	CodeUserNameExists           = 730101
	CodeSubAccountNameNull       = 730600
	CodeSubAccountNameFormat     = 730601
	CodeSubAccountRemarksNull    = 730602
	CodeAPIKeyRemarksNull        = 730700
	CodeAPIKeyPermissionNull     = 730701
	CodeAPIKeyPermissionUnknown  = 730702
	CodeIPInfoIncorrect          = 730703
	CodeBoundIPFormat            = 730704
	CodeTooManyAPIKeys           = 730705
	CodeAPIKeyNotExist           = 730706
	CodeAccessKeyNull            = 730707
	CodeSubAccountNotExist       = 140001
	CodeSubAccountForbidden      = 140002
)

// codeText is the spec's meaning of each code.
var codeText = map[int]string{
	CodeUnknownOrder:             "unknown order sent",
	CodeOperationNotAllowed:      "operation not allowed",
	CodeAPIKeyRequired:           "API key required",
	CodeNoAuthority:              "no authority",
	CodeAccessDenied:             "access denied",
	CodeTooManyRequests:          "too many requests",
	CodeInternalError:            "internal error",
	CodeServiceUnavailable:       "service not available, retry",
	CodeGatewayTimeout:           "gateway time-out",
	CodeSignatureFailed:          "signature verification failed",
	CodeUserNotExist:             "user does not exist",
	CodeBadSymbol:                "bad symbol (symbol not supported for API trading)",
	CodeUserIDNull:               "user id cannot be null",
	CodeInvalidAccessKey:         "invalid access key",
	CodeInvalidRequestTime:       "invalid Request-Time",
	CodeAmountNull:               "amount cannot be null",
	CodeAmountTooManyDecimals:    "amount has too many decimal places",
	CodeAmountWrong:              "amount is wrong",
	CodeRiskControl:              "risk control detected abnormal behaviour",
	CodeSubAccountNotOpened:      "sub-account not opened",
	CodeTransferCurrency:         "transfer of this currency not supported",
	CodeInsufficientBalance:      "insufficient balance",
	CodeAmountNotPositive:        "amount zero or negative",
	CodeTransferAccount:          "transfer for this account not supported",
	CodeTransferProcessing:       "transfer operation processing",
	CodeTransferInFailed:         "transfer in failed",
	CodeTransferOutFailed:        "transfer out failed",
	CodeTransferDisabled:         "transfer disabled",
	CodeTransferForbidden:        "transfer forbidden",
	CodeWithdrawAddressInvalid:   "withdrawal address not on the commonly used list or invalidated",
	CodeNoAddressAvailable:       "no address available, retry later",
	CodeAssetFlowFailed:          "asset flow writing failed, retry",
	CodeCurrencyNull:             "currency cannot be null",
	CodeCurrencyNotExist:         "currency does not exist",
	CodeIntermediateAccount:      "intermediate account not configured",
	CodeWithdrawRiskControl:      "withdrawal unavailable due to risk control",
	CodeRemarkTooLong:            "remark too long",
	CodeFeatureUnavailable:       "feature temporarily unavailable",
	CodeSubsystemNotSupported:    "subsystem not supported",
	CodeInternalSystemError:      "internal system error",
	CodeRecordNotExist:           "record does not exist",
	CodeTradingSuspended:         "trading suspended for the symbol",
	CodeDirectionNotAllowed:      "order direction not allowed currently",
	CodeBelowMinVolume:           "below the minimum transaction volume",
	CodeAboveMaxVolume:           "above the maximum transaction volume",
	CodeInsufficientPosition:     "insufficient position",
	CodeOversold:                 "oversold",
	CodeNoValidTradePrice:        "no valid trade price",
	CodeInvalidSymbol:            "invalid symbol",
	CodeTradingDisabled:          "trading disabled",
	CodeMarketOrderDisabled:      "market order disabled",
	CodeAPIMarketOrderDisabled:   "API market order disabled",
	CodeNoSymbolPermission:       "no permission for the symbol",
	CodeInvalidSymbol2:           "invalid symbol",
	CodeNoOpponentOrder:          "no opponent order exists",
	CodeInvalidOrderIDs:          "invalid order ids",
	CodeMaxPositionBuySuspended:  "maximum position reached, buying suspended",
	CodeRiskControlSellSuspended: "platform risk control triggered, selling suspended",
	CodeMaxOrderLimit:            "cannot exceed maximum order limit",
	CodeMaxPosition:              "cannot exceed maximum position",
	CodeOrderTypeNotAllowed:      "current order type cannot place order",
	CodeParameterError:           "parameter error",
	CodeParameterNull:            "parameter cannot be null",
	CodeAccountAbnormal:          "account abnormal",
	CodePairBannedForAPI:         "pair banned for API trading",
	CodeAPIKeyFormat:             "API key format invalid",
	CodeSignatureInvalid:         "signature not valid",
	CodeTimestampOutsideWindow:   "timestamp outside recvWindow",
	CodeOrderIDMissing:           "neither origClientOrderId nor orderId sent",
	CodeRecvWindowTooLarge:       "recvWindow must be less than 60000",
	CodeIPNotWhitelisted:         "IP not on whitelist",
	CodeNoEndpointPermission:     "no permission for the endpoint",
	CodeIllegalCharacters:        "illegal characters in parameter",
	CodeInvalidContentType:       "invalid content type",
	CodeRequestFailed:            "request failed, contact support",
	CodePairNotFound:             "pair not found",
	CodeInputInvalid:             "input parameter invalid",
	CodeUnsupportedOperation:     "unsupported operation",
	CodeUnusualUserStatus:        "unusual user status",
	CodeUserNameExists:           "user name already exists",
	CodeSubAccountNameNull:       "sub-account name cannot be null",
	CodeSubAccountNameFormat:     "sub-account name must be 8-32 letters and digits",
	CodeSubAccountRemarksNull:    "sub-account remarks cannot be null",
	CodeAPIKeyRemarksNull:        "API key remarks cannot be null",
	CodeAPIKeyPermissionNull:     "API key permission cannot be null",
	CodeAPIKeyPermissionUnknown:  "API key permission does not exist",
	CodeIPInfoIncorrect:          "IP information incorrect; at most 10 IPs may be bound",
	CodeBoundIPFormat:            "bound IP format incorrect",
	CodeTooManyAPIKeys:           "at most 30 groups of API keys may be created",
	CodeAPIKeyNotExist:           "API key information does not exist",
	CodeAccessKeyNull:            "accessKey cannot be null",
	CodeSubAccountNotExist:       "sub-account does not exist",
	CodeSubAccountForbidden:      "sub-account is forbidden",
}

// CodeText returns the spec's meaning of an error code, or "" for a code the
// spec does not list.
func CodeText(code int) string { return codeText[code] }

// Codes returns every error code the package names, in no particular order.
func Codes() []int {
	out := make([]int, 0, len(codeText))
	for c := range codeText {
		out = append(out, c)
	}
	return out
}
