/**
 * Relative links of Markdown files, and whether they resolve: the file (or folder) exists, and a
 * `#fragment` names a heading of the target, slugged as GitHub and npm's README renderer slug them.
 * Links inside fenced code blocks and code spans are not links; absolute URLs are not checked.
 */
import * as path from 'node:path';

export interface MarkdownLink {
  file: string;
  line: number;
  target: string;
}

/** The text without fenced code blocks (each line kept, emptied, so line numbers stay right). */
function withoutFences(text: string): string[] {
  let fence: string | null = null;
  return text.split('\n').map((line) => {
    const opener = /^\s*(```+|~~~+)/.exec(line);
    if (opener && (fence === null || opener[1].startsWith(fence))) {
      fence = fence === null ? opener[1] : null;
      return '';
    }
    return fence === null ? line : '';
  });
}

export function markdownLinks(file: string, text: string): MarkdownLink[] {
  const links: MarkdownLink[] = [];
  withoutFences(text).forEach((raw, i) => {
    const line = raw.replace(/(`+)(?:(?!\1).)+?\1/g, 'code'); // a code span's text is no link, but stays link text
    for (const m of line.matchAll(/!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) {
      const target = m[1];
      if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // https:, mailto:, ...
      links.push({ file, line: i + 1, target });
    }
  });
  return links;
}

/** Heading anchors of a Markdown text: GitHub's slugs (lower case, punctuation dropped, spaces to '-', repeats numbered). */
export function headingAnchors(text: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const line of withoutFences(text)) {
    const h = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!h) continue;
    const slug = h[1]
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-');
    const n = seen.get(slug) ?? 0;
    seen.set(slug, n + 1);
    anchors.add(n === 0 ? slug : `${slug}-${n}`);
  }
  return anchors;
}

/**
 * The links among `files` (paths relative to one root, '/'-separated) that do not resolve within
 * `exists` (the set of file paths there is: a folder exists when a file is under it); `read` gives
 * a Markdown file's text for the fragments.
 */
export function brokenLinks(files: string[], exists: Set<string>, read: (file: string) => string): string[] {
  const broken: string[] = [];
  const isThere = (p: string): boolean => exists.has(p) || [...exists].some((f) => f.startsWith(`${p}/`));
  for (const file of files) {
    for (const link of markdownLinks(file, read(file))) {
      const [pathPart, fragment] = link.target.split('#', 2) as [string, string | undefined];
      const relative = path.posix.join(path.posix.dirname(file), decodeURIComponent(pathPart));
      const target = pathPart === '' ? file : path.posix.normalize(relative).replace(/\/$/, '');
      const where = `${file}:${link.line}: ${link.target}`;
      if (target.startsWith('../') || !isThere(target)) broken.push(`${where} (no ${target})`);
      else if (fragment !== undefined && target.endsWith('.md') && !headingAnchors(read(target)).has(fragment)) {
        broken.push(`${where} (no heading #${fragment} in ${target})`);
      }
    }
  }
  return broken;
}
