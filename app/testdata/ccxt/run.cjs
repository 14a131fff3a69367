// Drives `bot sim-server` with ccxt's class for this interface (mexc), as a
// third-party user would, and prints one JSON object of results for
// app/ccxt_test.go to compare exactly. Two shims only: the base URL and the
// name of the key header. The server's clock is its replay's, so the
// client syncs to it (ccxt's own adjustForTimeDifference), and markets are
// loaded through ccxt's spot half of fetchMarkets (the other half reads the
// futures API, which this interface does not include).
//
// Environment: SPOTBOT_CCXT_DIR (a folder holding node_modules/ccxt),
// SIM_URL, SIM_KEY, SIM_SECRET.
'use strict';
const path = require('path');
const { createRequire } = require('module');
// ccxt as installed in SPOTBOT_CCXT_DIR, resolved through its package exports.
const ccxt = createRequire(path.join(process.env.SPOTBOT_CCXT_DIR, 'package.json'))('ccxt');

const base = process.env.SIM_URL;

// Shim 2 of 2: the key header's name.
class Sim extends ccxt.mexc {
    sign(pathName, api, method, params, headers, body) {
        const req = super.sign(pathName, api, method, params, headers, body);
        if (req.headers && req.headers['X-MEXC-APIKEY'] !== undefined) {
            req.headers['X-SVC-APIKEY'] = req.headers['X-MEXC-APIKEY'];
            delete req.headers['X-MEXC-APIKEY'];
        }
        return req;
    }
}

function client(secret) {
    const ex = new Sim({ apiKey: process.env.SIM_KEY, secret, timeout: 10000,
        options: { adjustForTimeDifference: true, recvWindow: 5000 } });
    // Shim 1 of 2: the base URL (every section, so nothing leaves the host).
    ex.urls.api = { spot: { public: base, private: base }, spot2: { public: base, private: base },
        contract: { public: base + '/api/v1/contract', private: base + '/api/v1/private' }, broker: { private: base + '/api/v3/broker' } };
    return ex;
}

async function load(ex) {
    await ex.loadTimeDifference();
    const markets = await ex.fetchSpotMarkets();
    const currencies = await ex.fetchCurrencies();
    ex.setMarkets(markets, currencies);
}

// order keeps the fields of a unified order that do not depend on the wall clock.
function order(o) {
    return { id: o.id, clientOrderId: o.clientOrderId, symbol: o.symbol, type: o.type, side: o.side,
        timeInForce: o.timeInForce, postOnly: o.postOnly, price: o.price, amount: o.amount, cost: o.cost,
        filled: o.filled, status: o.status };
}

function trade(t) {
    return { id: t.id, order: t.order, side: t.side, takerOrMaker: t.takerOrMaker, price: t.price, amount: t.amount,
        cost: t.cost, fee: t.fee };
}

async function failure(name, fn) {
    try {
        await fn();
        return { name, error: 'none' };
    } catch (e) {
        // The class ccxt chose and the server's code from the body it quotes.
        const m = /"code":(-?\d+)/.exec(e.message);
        return { name, error: e.constructor.name, code: m ? Number(m[1]) : null };
    }
}

// out is printed on failure too, to show how far the run got.
const out = {};

async function main() {
    const ex = client(process.env.SIM_SECRET);
    await load(ex);
    const t = await ex.fetchTime();
    out.timeInSync = Math.abs(t - ex.nonce()) < 5000;
    out.markets = ex.symbols.map((s) => {
        const m = ex.market(s);
        return { symbol: s, id: m.id, base: m.base, quote: m.quote, spot: m.spot, active: m.active,
            precision: m.precision, limits: { amount: m.limits.amount, cost: m.limits.cost }, maker: m.maker, taker: m.taker };
    });
    out.currencies = Object.keys(ex.currencies).sort();

    const book = await ex.fetchOrderBook('BTC/USDT', 5);
    out.orderBook = { bids: book.bids, asks: book.asks, nonce: book.nonce };
    const ohlcv = await ex.fetchOHLCV('BTC/USDT', '1h', undefined, 2);
    out.ohlcv = ohlcv;
    const tickers = await ex.fetchTickers(['BTC/USDT', 'ETH/USDT']);
    out.tickers = Object.keys(tickers).sort().map((s) => ({ symbol: s, last: tickers[s].last, bid: tickers[s].bid, ask: tickers[s].ask,
        open: tickers[s].open, high: tickers[s].high, low: tickers[s].low, baseVolume: tickers[s].baseVolume }));
    const last = tickers['BTC/USDT'].last;
    out.lastPrice = last;

    const bal = await ex.fetchBalance();
    out.balanceBefore = { USDT: bal.USDT, BTC: bal.BTC, ETH: bal.ETH };

    const p = (f) => Number(ex.priceToPrecision('BTC/USDT', last * f));
    const orders = {};
    // Market orders first: with nothing resting they fill at the last price.
    orders.marketSell = await ex.createOrder('BTC/USDT', 'market', 'sell', 0.001);
    orders.marketBuyCost = await ex.createMarketBuyOrderWithCost('BTC/USDT', 50);
    // ccxt sends quoteOrderQty = amount × price and the price beside it.
    orders.marketBuyPrice = await ex.createOrder('BTC/USDT', 'market', 'buy', 0.001, last);
    orders.limit = await ex.createOrder('BTC/USDT', 'limit', 'buy', 0.001, p(0.95), { clientOrderId: 'ccxt-limit' });
    orders.ioc = await ex.createOrder('BTC/USDT', 'limit', 'buy', 0.001, p(1.01), { timeInForce: 'IOC' });
    orders.fok = await ex.createOrder('BTC/USDT', 'limit', 'buy', 0.001, p(0.95), { timeInForce: 'FOK' });
    orders.postOnly = await ex.createOrder('BTC/USDT', 'limit', 'buy', 0.001, p(0.9), { postOnly: true });
    out.created = Object.fromEntries(Object.entries(orders).map(([k, o]) => [k, o.id]));
    out.batch = (await ex.createOrders([
        { symbol: 'BTC/USDT', type: 'limit', side: 'buy', amount: 0.001, price: p(0.9), params: { clientOrderId: 'ccxt-b1' } },
        { symbol: 'BTC/USDT', type: 'limit', side: 'sell', amount: 0.001, price: p(1.05), params: { clientOrderId: 'ccxt-b2' } },
        { symbol: 'BTC/USDT', type: 'limit', side: 'buy', amount: 0.00001, price: p(0.9), params: { clientOrderId: 'ccxt-b3' } },
    ])).map((o) => ({ id: o.id, clientOrderId: o.clientOrderId, status: o.status, code: o.info.code, msg: o.info.msg }));

    out.fetched = {};
    for (const [k, o] of Object.entries(orders)) {
        out.fetched[k] = order(await ex.fetchOrder(o.id, 'BTC/USDT'));
    }
    out.open = (await ex.fetchOpenOrders('BTC/USDT')).map((o) => o.id);
    out.canceled = order(await ex.cancelOrder(orders.limit.id, 'BTC/USDT'));
    out.canceledAll = (await ex.cancelAllOrders('BTC/USDT')).map((o) => [o.id, o.status]);
    out.openAfter = (await ex.fetchOpenOrders('BTC/USDT')).map((o) => o.id);
    out.all = (await ex.fetchOrders('BTC/USDT')).map((o) => [o.id, o.type, o.timeInForce, o.status]);
    out.myTrades = (await ex.fetchMyTrades('BTC/USDT')).map(trade);
    out.trades = (await ex.fetchTrades('BTC/USDT')).map((x) => ({ id: x.id, side: x.side, price: x.price, amount: x.amount }));
    const fee = await ex.fetchTradingFee('BTC/USDT');
    out.tradingFee = { symbol: fee.symbol, maker: fee.maker, taker: fee.taker };

    const created = await ex.createDepositAddress('USDT', { network: 'SIM' });
    out.depositAddressCreated = { currency: created.currency, network: created.network, address: created.address, tag: created.tag };
    const fetched = await ex.fetchDepositAddress('USDT', { network: 'SIM' });
    out.depositAddress = { currency: fetched.currency, network: fetched.network, address: fetched.address, tag: fetched.tag };
    out.deposits = (await ex.fetchDeposits('USDT')).map((d) => ({ amount: d.amount, status: d.status }));
    const wd = await ex.withdraw('USDT', 20, 'simexternaladdress0001', undefined, { network: 'SIM' });
    out.withdrawId = wd.id;
    out.withdrawals = (await ex.fetchWithdrawals('USDT')).map((w) => ({ id: w.id, amount: w.amount, currency: w.currency,
        address: w.address, status: w.status, fee: w.fee }));
    const tr = await ex.transfer('USDT', 10, 'spot', 'swap');
    out.transfer = { id: tr.id, amount: tr.amount, fromAccount: tr.fromAccount, toAccount: tr.toAccount };
    const after = await ex.fetchBalance();
    out.balanceAfter = { USDT: after.USDT, BTC: after.BTC, ETH: after.ETH };

    out.errors = [];
    out.errors.push(await failure('bad symbol, market data', () => ex.spotPublicGetDepth({ symbol: 'NOPEUSDT' })));
    out.errors.push(await failure('bad symbol, order', () => ex.spotPrivatePostOrder({ symbol: 'NOPEUSDT', side: 'BUY', type: 'LIMIT', quantity: '1', price: '1' })));
    out.errors.push(await failure('insufficient funds', () => ex.createOrder('BTC/USDT', 'limit', 'buy', 1, p(0.95))));
    const stale = ex.options.timeDifference;
    ex.options.timeDifference = stale + 120000;
    out.errors.push(await failure('stale timestamp', () => ex.fetchBalance()));
    ex.options.timeDifference = stale;
    const wrong = client('0'.repeat(32));
    wrong.options.timeDifference = stale;
    wrong.markets = ex.markets;
    wrong.markets_by_id = ex.markets_by_id;
    out.errors.push(await failure('bad signature', () => wrong.fetchBalance()));
    process.stdout.write(JSON.stringify(out, null, 1) + '\n');
}

main().catch((e) => {
    process.stderr.write(String(e && e.stack || e) + '\nso far: ' + JSON.stringify(out) + '\n');
    process.exit(1);
});
