/** Appends a SQL condition (with `?` placeholders) and its values to a WHERE list being built. */
export function addFilter(where: string[], args: unknown[], condition: string, ...values: unknown[]): void {
  where.push(condition);
  args.push(...values);
}
