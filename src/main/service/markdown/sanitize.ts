import type sanitizeHtml from 'sanitize-html';
import { lazyRequire } from '../lazy-require';

const sanitizer = lazyRequire<typeof sanitizeHtml>('sanitize-html');

/**
 * What survives in rendered Markdown, after GitLab's SanitizationFilter: the formatting tags, links
 * and images with safe schemes, checkboxes of task lists, and the attributes Sandlab's own renderer
 * writes. No script, style, iframe, form or event handler; no `javascript:`/`vbscript:`/`data:`
 * link (sanitize-html decodes entities and strips control characters before it checks a scheme).
 */
const OPTIONS: sanitizeHtml.IOptions = {
  allowedTags: [
    'a', 'abbr', 'b', 'bdi', 'bdo', 'blockquote', 'br', 'caption', 'cite', 'code', 'dd', 'del', 'details', 'dfn', 'div', 'dl', 'dt', 'em',
    'figcaption', 'figure', 'gl-emoji', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'hr', 'i', 'img', 'input', 'ins', 'kbd', 'li', 'mark', 'ol', 'p', 'pre',
    'q', 'rp', 'rt', 'ruby', 's', 'samp', 'small', 'span', 'strike', 'strong', 'sub', 'summary', 'sup', 'table', 'tbody', 'td', 'tfoot', 'th',
    'thead', 'time', 'tr', 'tt', 'u', 'ul', 'var', 'wbr',
  ],
  allowedAttributes: {
    '*': ['title', 'dir', 'lang', 'data-sourcepos', 'class', 'id'],
    a: ['href', 'name', 'rel', 'aria-hidden', 'data-reference-type', 'data-original', 'data-link', 'data-project', 'data-issue', 'data-iid', 'data-merge-request', 'data-user', 'data-container', 'data-placement'],
    img: ['src', 'alt', 'width', 'height', 'loading'],
    input: ['type', 'checked', 'disabled'],
    'gl-emoji': ['data-name', 'data-unicode-version'],
    td: ['align', 'colspan', 'rowspan'],
    th: ['align', 'colspan', 'rowspan', 'scope'],
    ol: ['start', 'reversed'],
    li: ['value'],
    details: ['open'],
    time: ['datetime'],
  },
  allowedSchemes: ['http', 'https', 'mailto', 'ftp', 'smb', 'irc', 'ircs', 'xmpp', 'tel'],
  allowedSchemesByTag: { img: ['http', 'https'] },
  allowProtocolRelative: true,
  // GitLab prefixes user-chosen ids so they cannot shadow the page's own.
  transformTags: {
    '*': (tagName, attribs) => {
      if (attribs.id && !attribs.id.startsWith('user-content-')) attribs.id = `user-content-${attribs.id}`;
      return { tagName, attribs };
    },
  },
  // Only checkboxes (task lists) among inputs.
  exclusiveFilter: (frame) => frame.tag === 'input' && frame.attribs.type !== 'checkbox',
};

export function sanitizeRenderedHtml(html: string): string {
  return sanitizer()(html, OPTIONS);
}
