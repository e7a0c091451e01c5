-- wrk script: each request creates and executes one USD -> EUR quote between internal accounts
-- (immediatelyExecute), so every 201 is one executed payment. Account pairs come from
-- BENCH_PAIRS ("src>dst,src>dst,..."); BENCH_AUTH is the Authorization header value.
local auth = os.getenv("BENCH_AUTH")
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
  local body = '{"source":{"sourceType":"ACCOUNT","accountId":"' .. pair[1] ..
    '"},"destination":{"destinationType":"ACCOUNT","accountId":"' .. pair[2] ..
    '"},"lockedCurrencySide":"SENDING","lockedCurrencyAmount":1000,"immediatelyExecute":true}'
  return wrk.format("POST", "/2025-10-13/quotes",
    {["Authorization"] = auth, ["Content-Type"] = "application/json"}, body)
end
