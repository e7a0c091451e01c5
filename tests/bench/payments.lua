-- wrk script for the money benchmarks. Each request moves 1000 minor units between a pair of
-- accounts from BENCH_PAIRS ("source>destination,..."), by BENCH_MODE:
--   quote    POST /quotes, internal account to internal account, immediatelyExecute (one executed
--            payment per 201)
--   transfer POST /transfer-out, internal account to external account through its rail
--   fund     POST /sandbox/internal-accounts/{source}/fund, a money-moving command without a rail
-- BENCH_AUTH is the Authorization header value.
local auth = os.getenv("BENCH_AUTH")
local mode = os.getenv("BENCH_MODE")
local pairs_list = {}
for pair in string.gmatch(os.getenv("BENCH_PAIRS"), "[^,]+") do
  local source, destination = string.match(pair, "([^>]+)>([^>]+)")
  table.insert(pairs_list, {source, destination})
end
local counter = 0

function setup(thread)
  thread:set("offset", math.random(1, #pairs_list))
end

function request()
  counter = counter + 1
  local pair = pairs_list[((counter + (offset or 0)) % #pairs_list) + 1]
  local headers = {["Authorization"] = auth, ["Content-Type"] = "application/json"}
  if mode == "fund" then
    return wrk.format("POST", "/2025-10-13/sandbox/internal-accounts/" .. pair[1] .. "/fund", headers,
      '{"amount":1000}')
  end
  if mode == "transfer" then
    return wrk.format("POST", "/2025-10-13/transfer-out", headers,
      '{"source":{"accountId":"' .. pair[1] .. '"},"destination":{"accountId":"' .. pair[2] ..
      '"},"amount":1000}')
  end
  return wrk.format("POST", "/2025-10-13/quotes", headers,
    '{"source":{"sourceType":"ACCOUNT","accountId":"' .. pair[1] ..
    '"},"destination":{"destinationType":"ACCOUNT","accountId":"' .. pair[2] ..
    '"},"lockedCurrencySide":"SENDING","lockedCurrencyAmount":1000,"immediatelyExecute":true}')
end
