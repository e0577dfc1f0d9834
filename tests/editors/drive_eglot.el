;;; drive_eglot.el --- Drives eglot headless through the user's configuration (deja-eglot.el, as
;; docs/editors.md gives it) and records what the sidecar answers to a JSON file. Every wait is
;; on what eglot or the server reports, bounded so that a failure is an answer.
(require 'json)
(require 'seq)
(load (getenv "DEJA_EGLOT_CONFIG") nil t)
(defvar deja-out (list (cons 'steps [])))
(defvar deja-messages nil)
(defun deja-save ()
  (with-temp-file (getenv "DEJA_EGLOT_OUT") (insert (json-encode deja-out))))
(defun deja-record (key value)
  (setf (alist-get key deja-out) value)
  (setf (alist-get 'steps deja-out) (vconcat (alist-get 'steps deja-out) (list (symbol-name key))))
  (deja-save))
(defun deja-wait (predicate seconds)
  (let ((deadline (+ (float-time) seconds)) (found nil))
    (while (and (not (setq found (funcall predicate))) (< (float-time) deadline))
      (accept-process-output nil 0.05))
    found))
(advice-add 'eglot--message :before
            (lambda (format &rest args) (push (apply #'format format args) deja-messages)))

(find-file (getenv "DEJA_FILE"))
(run-hooks 'post-command-hook)          ; where eglot-ensure connects
(let ((server (deja-wait #'eglot-current-server 30)))
  (deja-record 'initialized (and server t))
  (deja-record 'pid (process-id (jsonrpc--process server)))
  (goto-char (point-min))
  (forward-line (string-to-number (getenv "DEJA_LINE")))
  (forward-char 6)
  ;; eglot 1.9 shows no progress: the first pass is over when the hover answers.
  (deja-record 'hover
               (deja-wait (lambda () (jsonrpc-request server :textDocument/hover
                                                      (eglot--TextDocumentPositionParams)))
                          30))
  (deja-record 'lenses
               (jsonrpc-request server :textDocument/codeLens
                                (list :textDocument (eglot--TextDocumentIdentifier))))
  ;; The code action menu as a user picks from it: "open session".
  (let ((last-nonmenu-event 13) (offered nil))
    (cl-letf (((symbol-function 'completing-read)
               (lambda (_prompt items &rest _)
                 (setq offered (mapcar #'car items))
                 (seq-find (lambda (title) (string-match-p "open session" title)) offered))))
      (eglot-code-actions (point) nil nil t))
    (deja-record 'actions (vconcat offered)))
  (deja-record 'wrote (deja-wait (lambda () (seq-find (lambda (m) (string-match-p "wrote " m))
                                                      deja-messages))
                                 15))
  (deja-record 'search (deja-search (getenv "DEJA_QUERY")))
  (eglot-shutdown server)
  (deja-record 'stopped (not (process-live-p (jsonrpc--process server)))))
(kill-emacs 0)
