import { Module } from '@nestjs/common';
import { UsersRepository } from './users.repository';

/**
 * The accounts' tables on their own: sessions re-read the account they name, and the accounts'
 * API in turn issues sessions.
 */
@Module({ providers: [UsersRepository], exports: [UsersRepository] })
export class UsersStorageModule {}
