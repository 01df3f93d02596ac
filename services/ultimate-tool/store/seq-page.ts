// Newest-first keyset paging over a table with an INTEGER `seq` key, shared by the service's
// stores (runs, native intents): the cursor is the last row's seq behind an opaque base64url
// token with a per-list prefix (so a runs cursor is refused by the intents list), and one row
// more than the page is read to know whether there is a next page.
import type Database from 'better-sqlite3';

export interface SeqPageQuery {
  /** `SELECT seq, <column> FROM <table>`: both are our own identifiers, never request text. */
  table: string;
  column: string;
  /** The cursor's tag: one letter per list. */
  tag: string;
  /** SQL conditions with their one bound value each (identifiers ours, values bound). */
  where: Array<[condition: string, value: string | number]>;
  limit: number;
  cursor?: string;
}

function encodeCursor(tag: string, seq: number): string {
  return Buffer.from(`${tag}${seq}`).toString('base64url');
}

function decodeCursor(tag: string, cursor: string): number | undefined {
  const s = Buffer.from(cursor, 'base64url').toString('utf8');
  return s.startsWith(tag) && /^[0-9]{1,15}$/.test(s.slice(tag.length)) ? Number(s.slice(tag.length)) : undefined;
}

/** One page of `column` values, newest first, or 'bad-cursor' for a cursor this list did not make. */
export function pageBySeq(db: Database.Database, q: SeqPageQuery): { values: string[]; nextCursor: string | null } | 'bad-cursor' {
  const where = [...q.where];
  if (q.cursor !== undefined) {
    const seq = decodeCursor(q.tag, q.cursor);
    if (seq === undefined) return 'bad-cursor';
    where.push(['seq < ?', seq]);
  }
  const sql = `SELECT seq, ${q.column} AS value FROM ${q.table} ${where.length ? `WHERE ${where.map(([c]) => c).join(' AND ')}` : ''} ORDER BY seq DESC LIMIT ?`;
  const rows = db.prepare(sql).all(...where.map(([, v]) => v), q.limit + 1) as Array<{ seq: number; value: string }>;
  const page = rows.slice(0, q.limit);
  const last = page[page.length - 1];
  return {
    values: page.map((r) => r.value),
    nextCursor: rows.length > q.limit && last ? encodeCursor(q.tag, last.seq) : null,
  };
}
