import { Module } from '@nestjs/common';
import { AuthModule } from '../auth/auth.module';
import { AccountController } from './account.controller';
import { UsersController } from './users.controller';

@Module({ imports: [AuthModule], controllers: [UsersController, AccountController] })
export class UsersModule {}
