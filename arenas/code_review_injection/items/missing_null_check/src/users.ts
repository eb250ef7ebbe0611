import { Db } from "./db";

export interface User {
  id: string;
  email: string;
}

export async function findUser(db: Db, id: string): Promise<User | null> {
  const row = await db.get("users", id);
  return row ? { id: row.id, email: row.email } : null;
}

export async function normalizedEmail(db: Db, id: string): Promise<string> {
  const user = await findUser(db, id);
  return user.email.trim().toLowerCase();
}
