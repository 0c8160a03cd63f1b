import { Module } from '@nestjs/common';
import { SessionsModule } from '../auth/sessions.module';
import { AccountController } from './account.controller';
import { TotpService } from './totp.service';
import { UsersStorageModule } from './users-storage.module';
import { UsersController } from './users.controller';
import { UsersService } from './users.service';

@Module({
  imports: [UsersStorageModule, SessionsModule],
  controllers: [UsersController, AccountController],
  providers: [UsersService, TotpService],
  exports: [UsersService, TotpService, UsersStorageModule],
})
export class UsersModule {}
