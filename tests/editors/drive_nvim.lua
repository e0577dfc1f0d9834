-- Drives Neovim headless through the user's configuration (deja.lua, as docs/editors.md gives it):
-- opens the file Continue edited, then records what the sidecar answers to a JSON file.
-- Every wait is on what Neovim or the server reports, bounded so that a failure is an answer.
local deja = dofile(os.getenv("DEJA_NVIM_CONFIG"))
local out = { steps = {}, reached = {} }
local function save()
  vim.fn.writefile({ vim.fn.json_encode(out) }, os.getenv("DEJA_NVIM_OUT"))
end
local function step(name, ok) out.steps[#out.steps + 1] = name; out.reached[name] = ok; save() end

vim.cmd("edit " .. vim.fn.fnameescape(os.getenv("DEJA_FILE")))
local bufnr = vim.api.nvim_get_current_buf()
local client
vim.wait(30000, function()
  client = deja.client_id and vim.lsp.get_client_by_id(deja.client_id)
  return client ~= nil and client.initialized == true
end, 20)
step("initialized", client ~= nil)
out.pid = client.rpc.pid
out.server_name = client.server_capabilities and client.name
save()

-- The first pass is over when its work-done progress ends.
local progress_done = vim.wait(30000, function()
  local progress = client.messages and client.messages.progress or {}
  local indexing = progress["deja/indexing"]
  return indexing ~= nil and indexing.done == true
end, 20)
step("first_pass_done", progress_done)

local position = { line = tonumber(os.getenv("DEJA_LINE")), character = 6 }
local document = { uri = vim.uri_from_bufnr(bufnr) }
local hover = client.request_sync("textDocument/hover", { textDocument = document, position = position }, 10000, bufnr)
out.hover = hover and hover.result and hover.result.contents or vim.NIL
step("hover", out.hover ~= vim.NIL)

local lenses = client.request_sync("textDocument/codeLens", { textDocument = document }, 10000, bufnr)
out.lenses = {}
for _, lens in ipairs(lenses and lenses.result or {}) do
  out.lenses[#out.lenses + 1] = lens.command.title
end
step("lenses", #out.lenses > 0)

-- The code action menu as a user picks from it: vim.ui.select answered with "open session".
out.actions = {}
vim.ui.select = function(items, opts, on_choice)
  local chosen
  for index, item in ipairs(items) do
    local title = (opts.format_item or function(i) return i.title end)(item)
    out.actions[#out.actions + 1] = title
    if chosen == nil and title:find("open session") then chosen = index end
  end
  on_choice(items[chosen], chosen)
end
local shown = {}
vim.notify = function(message) shown[#shown + 1] = message end
vim.lsp.handlers["window/showMessage"] = function(_, result) shown[#shown + 1] = result.message end
vim.api.nvim_win_set_cursor(0, { position.line + 1, position.character })
vim.lsp.buf.code_action()
local wrote = vim.wait(15000, function()
  for _, message in ipairs(shown) do
    if message:find("wrote ") then return true end
  end
  return false
end, 20)
out.messages = shown
step("code_action", wrote)

local found = client.request_sync("deja/search", { query = os.getenv("DEJA_QUERY") }, 10000, bufnr)
out.search = found and found.result or vim.NIL
step("search", out.search ~= vim.NIL)
-- Neovim sends an empty Lua table as `[]`.
local sessions = client.request_sync("deja/sessions", {}, 10000, bufnr)
out.sessions = sessions and (sessions.result or sessions.err) or vim.NIL
step("sessions", sessions ~= nil and sessions.result ~= nil)

client.stop()
local stopped = vim.wait(15000, function() return client.is_stopped() end, 20)
step("stopped", stopped)
vim.cmd("qa!")
