import { html } from 'htm/preact';
import type { EstimateMark as Mark } from '../estimates.js';

/** The `estimated` tag beside a figure whose source is a family estimate; nothing otherwise. */
export function EstimateMark({ mark }: { mark: Mark | null }) {
  if (!mark) return null;
  return html` <span class="tag tag-estimated" title=${mark.title}>${mark.label}</span>`;
}
