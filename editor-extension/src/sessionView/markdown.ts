/** Session messages as HTML: markdown-it with raw HTML off (a `<script>` in a message is text),
 * only http(s) and mailto links, no images (the view loads nothing remote), and fenced code
 * highlighted by highlight.js for the languages sessions mostly hold. */

import hljs from "highlight.js/lib/core";
import bash from "highlight.js/lib/languages/bash";
import css from "highlight.js/lib/languages/css";
import diff from "highlight.js/lib/languages/diff";
import go from "highlight.js/lib/languages/go";
import java from "highlight.js/lib/languages/java";
import javascript from "highlight.js/lib/languages/javascript";
import json from "highlight.js/lib/languages/json";
import python from "highlight.js/lib/languages/python";
import rust from "highlight.js/lib/languages/rust";
import shell from "highlight.js/lib/languages/shell";
import sql from "highlight.js/lib/languages/sql";
import typescript from "highlight.js/lib/languages/typescript";
import xml from "highlight.js/lib/languages/xml";
import yaml from "highlight.js/lib/languages/yaml";
import MarkdownIt from "markdown-it";

const LANGUAGES = { bash, css, diff, go, java, javascript, json, python, rust, shell, sql, typescript, xml, yaml };
for (const [name, language] of Object.entries(LANGUAGES)) {
  hljs.registerLanguage(name, language);
}
// Past this a block is shown plain: highlighting is linear but not free.
const MOST_HIGHLIGHTED = 100_000;

function highlight(code: string, language: string): string {
  if (language === "" || code.length > MOST_HIGHLIGHTED || hljs.getLanguage(language) === undefined) {
    return ""; // markdown-it escapes it
  }
  return hljs.highlight(code, { language, ignoreIllegals: true }).value;
}

const markdown = new MarkdownIt({ html: false, linkify: false, breaks: false, highlight });
markdown.disable(["image"]);
markdown.validateLink = (url: string) => /^(https?:|mailto:)/i.test(url.trim());

export function renderMarkdown(text: string): string {
  return markdown.render(text);
}
