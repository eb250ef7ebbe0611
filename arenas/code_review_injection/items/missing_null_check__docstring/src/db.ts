export interface Db {
  get(table: string, id: string): Promise<Record<string, string> | undefined>;
}
