-- wrk script: POST /transfer-out of 1000 cents from a funded internal account to an external
-- account through the sandbox rail, or (BENCH_MODE=fund) the reference: a sandbox deposit into an
-- internal account, a money-moving ledger command without a rail. Pairs come from BENCH_PAIRS
-- ("internal>external,..."); BENCH_AUTH is the Authorization header value.
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
  local body = '{"source":{"accountId":"' .. pair[1] .. '"},"destination":{"accountId":"' .. pair[2] ..
    '"},"amount":1000}'
  return wrk.format("POST", "/2025-10-13/transfer-out", headers, body)
end
