-- Deja in Neovim: hovers, code lenses and code actions from Continue's history.
-- Save as ~/.config/nvim/lua/deja.lua and add `require("deja")` to init.lua.
-- Works with Neovim 0.7 (vim.lsp.start_client) and 0.8+ (vim.lsp.start).
local M = {}

M.config = {
  name = "deja",
  cmd = { "deja", "serve" },
  -- "workspace": this project's sessions; "all": every workspace's.
  init_options = { scope = "workspace" },
}

-- Start Deja (once per project folder) and attach it to the buffer.
function M.attach(bufnr)
  if vim.api.nvim_buf_get_option(bufnr, "buftype") ~= "" then
    return
  end
  local config = vim.tbl_extend("force", M.config, { root_dir = vim.fn.getcwd() })
  if vim.lsp.start then
    M.client_id = vim.lsp.start(config, { bufnr = bufnr })
  else
    M.client_id = M.client_id or vim.lsp.start_client(config)
    vim.lsp.buf_attach_client(bufnr, M.client_id)
  end
  return M.client_id
end

-- Custom requests: `:DejaSearch words` lists what Continue sessions said, in a scratch buffer.
function M.search(query)
  local client = vim.lsp.get_client_by_id(M.client_id)
  local answer = client.request_sync("deja/search", { query = query }, 10000)
  local lines = {}
  for _, hit in ipairs((answer and answer.result or {}).hits or {}) do
    local snippet = hit.snippet_text:gsub("%s+", " ")
    lines[#lines + 1] = string.format("%s  %s: %s", hit.session_id:sub(1, 8), hit.title, snippet)
  end
  vim.cmd("new")
  vim.bo.buftype = "nofile"
  vim.api.nvim_buf_set_lines(0, 0, -1, false, #lines > 0 and lines or { "no match for " .. query })
  return lines
end

vim.api.nvim_create_autocmd("BufReadPost", {
  callback = function(args) M.attach(args.buf) end,
})
vim.api.nvim_create_user_command("DejaSearch", function(args) M.search(args.args) end, { nargs = "+" })
-- Code lenses: shown after each change; `:lua vim.lsp.codelens.run()` runs the one on the line.
vim.api.nvim_create_autocmd({ "BufEnter", "InsertLeave", "BufWritePost" }, {
  callback = function() pcall(vim.lsp.codelens.refresh) end,
})

return M
