;;; deja-eglot.el --- Deja in Emacs with eglot: hovers (eldoc) and code actions from Continue's history.
;; Load it from your init file: (load "~/.emacs.d/deja-eglot.el").
;; eglot runs one server per major mode: the modes listed get Deja instead of another server.
(require 'eglot)
(add-to-list 'eglot-server-programs
             '((python-mode js-mode typescript-mode sh-mode) . ("deja" "serve")))
(add-hook 'python-mode-hook #'eglot-ensure)

(defun deja-search (query)
  "List what Continue sessions said about QUERY (the custom request deja/search)."
  (interactive "sSearch Continue history: ")
  (let ((found (jsonrpc-request (eglot--current-server-or-lose)
                                :deja/search (list :query query))))
    (with-current-buffer (get-buffer-create "*deja search*")
      (erase-buffer)
      (seq-doseq (hit (plist-get found :hits))
        (insert (format "%s  %s: %s\n"
                        (substring (plist-get hit :session_id) 0 8)
                        (plist-get hit :title)
                        (replace-regexp-in-string "[ \t\n]+" " " (plist-get hit :snippet_text)))))
      (display-buffer (current-buffer)))
    found))
