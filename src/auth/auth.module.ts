import { Module } from '@nestjs/common';
import { PassportModule } from '@nestjs/passport';
import { TypeOrmModule } from '@nestjs/typeorm';
import { JwtStrategy } from './jwt.strategy.js';
import { JwtAuthGuard } from './jwt-auth.guard.js';
import { ServiceAccount } from './service-account.entity.js';
import { ServiceAccountStatus } from './service-account-status.js';
import { ServiceAccountsRepository } from './service-accounts.repository.js';
import { TokenController } from './token.controller.js';
import { TokenService } from './token.service.js';
import { ServiceAccountsService } from './service-accounts.service.js';

@Module({
  imports: [PassportModule, TypeOrmModule.forFeature([ServiceAccount])],
  controllers: [TokenController],
  providers: [TokenService, JwtStrategy, JwtAuthGuard, ServiceAccountStatus, ServiceAccountsService, ServiceAccountsRepository],
  exports: [JwtAuthGuard, ServiceAccountStatus, ServiceAccountsService],
})
export class AuthModule {}
